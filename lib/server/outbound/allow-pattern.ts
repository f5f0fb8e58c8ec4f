import ipaddr from "ipaddr.js";

type Address = ipaddr.IPv4 | ipaddr.IPv6;

/**
 * One allowlist entry, parsed. A host pattern admits names (exactly, or any subdomain with
 * `*.`); an address pattern (an IP or a CIDR) admits connections to those addresses, and is the
 * only way to reach a loopback, private, link-local or metadata address.
 */
export type AllowPattern =
  | { kind: "host"; host: string; wildcard: boolean; port: number | null }
  | { kind: "address"; range: [Address, number]; port: number | null };

const HOST_LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;

/** An IPv4-mapped IPv6 address is its IPv4 address, so `::ffff:127.0.0.1` is loopback. */
export function parseAddress(text: string): Address | null {
  const bare = text.startsWith("[") && text.endsWith("]") ? text.slice(1, -1) : text;
  if (!ipaddr.isValid(bare)) return null;
  // Shorthands like `127.1` or `0x7f.1` are valid to inet_aton but never in an allowlist or a URL host.
  if (ipaddr.IPv4.isValid(bare) && !ipaddr.IPv4.isValidFourPartDecimal(bare)) return null;
  return ipaddr.process(bare);
}

function splitPort(text: string): { host: string; port: number | null } | null {
  const bracketed = /^\[([^\]]+)\](?::(\d{1,5}))?$/.exec(text);
  if (bracketed) return { host: bracketed[1]!, port: bracketed[2] ? Number(bracketed[2]) : null };
  const colons = text.split(":").length - 1;
  if (colons === 1) {
    const [host, port] = text.split(":") as [string, string];
    return /^\d{1,5}$/.test(port) ? { host, port: Number(port) } : null;
  }
  return { host: text, port: null };
}

/** Parses an entry; null when it is none of the accepted forms. */
export function parseAllowPattern(raw: string): AllowPattern | null {
  const text = raw.trim().toLowerCase();
  if (text.includes("/")) {
    const [base, bits] = text.split("/") as [string, string];
    const address = parseAddress(base);
    if (!address || !/^\d{1,3}$/.test(bits)) return null;
    const prefix = Number(bits);
    const max = address.kind() === "ipv4" ? 32 : 128;
    if (prefix > max) return null;
    return { kind: "address", range: [address, prefix], port: null };
  }
  const split = splitPort(text);
  if (!split || (split.port !== null && (split.port < 1 || split.port > 65535))) return null;
  const address = parseAddress(split.host);
  if (address) return { kind: "address", range: [address, address.kind() === "ipv4" ? 32 : 128], port: split.port };
  const wildcard = split.host.startsWith("*.");
  const host = (wildcard ? split.host.slice(2) : split.host).replace(/\.$/, "");
  const labels = host.split(".");
  if (!labels.every((label) => HOST_LABEL.test(label))) return null;
  // A numeric last label is an IPv4 shorthand (`127.1`) that URLs parse as an address.
  if (/^\d+$/.test(labels[labels.length - 1]!)) return null;
  // `*.com` would admit a whole top-level domain.
  if (wildcard && labels.length < 2) return null;
  return { kind: "host", host, wildcard, port: split.port };
}

export function portMatches(pattern: AllowPattern, port: number): boolean {
  return pattern.port === null || pattern.port === port;
}

export function hostMatches(pattern: AllowPattern & { kind: "host" }, host: string): boolean {
  if (!pattern.wildcard) return host === pattern.host;
  return host.endsWith(`.${pattern.host}`);
}

export function addressMatches(pattern: AllowPattern & { kind: "address" }, address: Address): boolean {
  const [base, bits] = pattern.range;
  return base.kind() === address.kind() && address.match(base, bits);
}
