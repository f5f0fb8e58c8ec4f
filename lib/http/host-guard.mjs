// Which `Host` values the server answers for (DNS rebinding defence). Plain JavaScript because
// scripts/serve.mjs checks every request with it before anything else runs (before Next.js, the
// lean agent path and the boot), and the TypeScript side (the demo sign-in) asks it too.
import os from "node:os";
import net from "node:net";

/**
 * A page on any domain can rebind its name to 127.0.0.1; to the server it is then a loopback client
 * whose Origin matches the Host it sent. What it cannot choose is a Host the server does not know:
 * so only the names the server is meant to answer for are served. Always known: `localhost` and
 * `*.localhost` (they never resolve off the machine), loopback addresses, the machine's own
 * interface addresses (what a listener on all interfaces is reached by), and the listening address.
 * Added by configuration: the public URLs (BETTER_AUTH_URL, IDEMGATE_PUBLIC_URL) and
 * IDEMGATE_ALLOWED_HOSTS (comma-separated names; `.example.com` means that domain and every
 * subdomain; `*` turns the check off, for a proxy that validates Host itself).
 */

/**
 * The host name of a Host header, lowercased, without port, brackets or a trailing dot; null when
 * it is not a syntactically valid host (RFC 9110 §7.2: uri-host [":" port]).
 * @param {string | undefined | null} header
 * @returns {string | null}
 */
export function hostName(header) {
  if (typeof header !== "string" || header.length === 0 || header.length > 300) return null;
  const value = header.trim().toLowerCase();
  const bracketed = /^\[([0-9a-f:.]+)\](?::(\d{1,5}))?$/.exec(value);
  if (bracketed) return net.isIPv6(bracketed[1]) ? bracketed[1] : null;
  const plain = /^([a-z0-9_.-]+)(?::(\d{1,5}))?$/.exec(value);
  if (!plain) return null;
  const name = plain[1].replace(/\.$/, "");
  return name.length > 0 && name.length <= 253 ? name : null;
}

/**
 * Whether a host name only ever reaches this machine: `localhost`, `*.localhost` (RFC 6761), a
 * 127.0.0.0/8 address or ::1.
 * @param {string} name a value from hostName()
 */
export function isLoopbackHostName(name) {
  if (name === "localhost" || name.endsWith(".localhost")) return true;
  if (net.isIPv4(name)) return name.startsWith("127.");
  if (net.isIPv6(name)) return name === "::1" || /^::ffff:127\./.test(name) || name === "0:0:0:0:0:0:0:1";
  return false;
}

/**
 * @param {string | undefined} value
 * @returns {string[]}
 */
export function parseAllowedHosts(value) {
  return (value ?? "")
    .split(",")
    .map((entry) => entry.trim().toLowerCase().replace(/\.$/, ""))
    .filter(Boolean);
}

/** @param {string | undefined} url */
function hostOfUrl(url) {
  if (!url) return null;
  try {
    return hostName(new URL(url).host);
  } catch {
    return null;
  }
}

const ANY_ADDRESS = new Set(["", "0.0.0.0", "::", "[::]"]);

/**
 * @param {{ listenHost?: string, allowedHosts?: string, publicUrls?: Array<string | undefined> }} config
 * @returns {{ allows: (hostHeader: string | undefined | null) => boolean, describe: () => string[] }}
 */
export function hostGuard({ listenHost, allowedHosts, publicUrls = [] }) {
  const entries = parseAllowedHosts(allowedHosts);
  const anyHost = entries.includes("*");
  const exact = new Set(entries.filter((entry) => !entry.startsWith(".")));
  const suffixes = entries.filter((entry) => entry.startsWith(".") && entry.length > 1);
  for (const url of publicUrls) {
    const name = hostOfUrl(url);
    if (name) exact.add(name);
  }
  const listening = listenHost && !ANY_ADDRESS.has(listenHost) ? hostName(listenHost) : null;
  if (listening) exact.add(listening);

  // The machine's own addresses, read again at most every 30 s (an interface can come up later).
  let own = new Set();
  let ownRead = 0;
  const ownAddresses = () => {
    const now = Date.now();
    if (now - ownRead > 30_000) {
      own = new Set(
        Object.values(os.networkInterfaces())
          .flat()
          .filter(Boolean)
          .map((info) => info.address.toLowerCase().replace(/%.*$/, "")),
      );
      ownRead = now;
    }
    return own;
  };

  return {
    allows(hostHeader) {
      if (anyHost) return true;
      const name = hostName(hostHeader);
      if (name === null) return false;
      if (isLoopbackHostName(name) || exact.has(name)) return true;
      if (suffixes.some((suffix) => name === suffix.slice(1) || name.endsWith(suffix))) return true;
      return net.isIP(name) !== 0 && ownAddresses().has(name);
    },
    describe() {
      return anyHost ? ["*"] : ["localhost", "*.localhost", "loopback and this machine's addresses", ...exact, ...suffixes.map((suffix) => `*${suffix}`)];
    },
  };
}

/**
 * The refusal, as the agent API words its errors.
 * @param {string | undefined | null} hostHeader
 */
export function refusalBody(hostHeader) {
  const shown = typeof hostHeader === "string" ? hostHeader.slice(0, 100) : "(none)";
  return JSON.stringify({
    error: {
      code: "forbidden",
      message: `this server does not answer for host ${JSON.stringify(shown)}: add it to IDEMGATE_ALLOWED_HOSTS (or set BETTER_AUTH_URL) if it is this server's name`,
      retryable: false,
    },
  });
}
