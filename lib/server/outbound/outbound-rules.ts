import ipaddr from "ipaddr.js";
import { type AllowPattern, addressMatches, hostMatches, parseAddress, parseAllowPattern, portMatches } from "./allow-pattern";
import { OutboundRefusedError } from "./outbound-refused";

/** Names that resolve to a cloud instance's metadata service; a wildcard entry never admits them. */
const METADATA_HOSTS = new Set([
  "metadata.google.internal",
  "metadata.goog",
  "metadata",
  "instance-data",
  "instance-data.ec2.internal",
  "metadata.azure.internal",
  "metadata.tencentyun.com",
]);

export interface OutboundTarget {
  url: URL;
  host: string;
  port: number;
  /** Set when the URL's host is an IP literal: nothing is resolved, this is where it connects. */
  address: ipaddr.IPv4 | ipaddr.IPv6 | null;
}

export function compileAllowlist(patterns: string[]): AllowPattern[] {
  return patterns.map(parseAllowPattern).filter((pattern): pattern is AllowPattern => pattern !== null);
}

function defaultPort(url: URL): number {
  return url.port ? Number(url.port) : url.protocol === "https:" ? 443 : 80;
}

/**
 * The first of two checks: may this URL be called at all? A name must match a host entry; an IP
 * literal (nothing is resolved for it, so this is also where it connects) an address entry.
 */
export function checkOutboundUrl(allowlist: AllowPattern[], input: string | URL): OutboundTarget {
  let url: URL;
  try {
    url = new URL(input);
  } catch {
    throw new OutboundRefusedError("invalid_url", "not an absolute URL");
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new OutboundRefusedError("scheme", `only http and https are called, not ${url.protocol}`);
  }
  if (url.username || url.password) throw new OutboundRefusedError("invalid_url", "credentials in the URL are not sent; use a header");
  const host = url.hostname.replace(/^\[|\]$/g, "").replace(/\.$/, "").toLowerCase();
  const port = defaultPort(url);
  const address = parseAddress(host);
  if (address) {
    // An IP literal is admitted only by an IP or CIDR entry, whatever its range.
    if (!coveredBy(allowlist, address, port)) {
      throw new OutboundRefusedError("not_allowlisted", `${host}:${port} is not on this project's outbound allowlist`);
    }
    return { url, host, port, address };
  }
  const entry = allowlist.find((pattern) => pattern.kind === "host" && hostMatches(pattern, host) && portMatches(pattern, port));
  if (!entry) throw new OutboundRefusedError("not_allowlisted", `${host}:${port} is not on this project's outbound allowlist`);
  if (METADATA_HOSTS.has(host) && entry.kind === "host" && entry.wildcard) {
    throw new OutboundRefusedError("metadata_host", `${host} is a metadata service; only an exact allowlist entry admits it`);
  }
  return { url, host, port, address: null };
}

/**
 * The second check, on the address actually connected to (after DNS, so a name that rebinds to
 * an internal address is caught). Public unicast addresses pass; loopback, private, link-local
 * (which holds the metadata services), unique-local and every other special range pass only when
 * an IP or CIDR entry covers them.
 */
export function checkOutboundAddress(allowlist: AllowPattern[], text: string, port: number): void {
  const address = parseAddress(text);
  if (!address) throw new OutboundRefusedError("unresolvable", `${text} is not an IP address`);
  if (address.range() === "unicast" || coveredBy(allowlist, address, port)) return;
  throw new OutboundRefusedError(
    "special_address",
    `${address.toString()} is a ${address.range()} address; only an IP or CIDR allowlist entry admits it`,
  );
}

function coveredBy(allowlist: AllowPattern[], address: ipaddr.IPv4 | ipaddr.IPv6, port: number): boolean {
  return allowlist.some((pattern) => pattern.kind === "address" && addressMatches(pattern, address) && portMatches(pattern, port));
}
