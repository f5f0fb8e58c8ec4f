import dc from "node:diagnostics_channel";
import type { IncomingMessage } from "node:http";
import type { TLSSocket } from "node:tls";
import proxyaddr from "proxy-addr";
import type { HeaderReader } from "./header-reader";
import { processSlot } from "../process-wide";

/**
 * Headers our own server process writes on every request before Next.js sees it, overwriting
 * anything a client sent under these names: the client's address and protocol as far as the
 * socket and the configured trusted proxies vouch for them.
 */
export const CLIENT_IP_HEADER = "x-idemgate-client-ip";
export const CLIENT_PROTO_HEADER = "x-idemgate-client-proto";
/** The X-Forwarded-For chain exactly as the request brought it (Next.js fills in one when absent). */
export const REPORTED_FOR_HEADER = "x-idemgate-reported-for";
/** The host the client addressed: its Host, or a trusted proxy's X-Forwarded-Host. */
export const CLIENT_HOST_HEADER = "x-idemgate-client-host";
/** The request target (path and query) byte for byte as it arrived, before any URL parser re-encodes it. */
export const RAW_TARGET_HEADER = "x-idemgate-raw-target";

const installed = processSlot<boolean>("clientAddressInstalled");

/**
 * Route handlers never see the socket, and X-Forwarded-For is whatever the client wrote. Node
 * announces each request on a diagnostics channel before any listener (Next.js included) runs,
 * with the socket: the address is resolved there, from the peer address, walking back through
 * X-Forwarded-For only over hops in `trustedProxies` (proxy-addr's rules: addresses, CIDRs,
 * `loopback`, `linklocal`, `uniquelocal`). Empty: the peer address, whatever the headers say.
 */
export function installClientAddress(trustedProxies: readonly string[]): void {
  if (installed.get()) return;
  const trust = proxyaddr.compile([...trustedProxies]);
  dc.subscribe("http.server.request.start", (message) => {
    stamp((message as { request: IncomingMessage }).request, trust);
  });
  installed.set(true);
}

function stamp(req: IncomingMessage, trust: (addr: string, i: number) => boolean): void {
  const peer = req.socket.remoteAddress ?? "";
  const forwardedProto = trust(peer, 0) ? firstValue(req.headers["x-forwarded-proto"]) : undefined;
  const encrypted = (req.socket as TLSSocket).encrypted === true;
  req.headers[CLIENT_IP_HEADER] = unmapIpv4(proxyaddr(req, trust));
  req.headers[CLIENT_PROTO_HEADER] = encrypted || forwardedProto === "https" ? "https" : "http";
  const forwardedHost = trust(peer, 0) ? firstValue(req.headers["x-forwarded-host"], false) : undefined;
  const host = forwardedHost || req.headers.host;
  if (host) req.headers[CLIENT_HOST_HEADER] = host;
  else delete req.headers[CLIENT_HOST_HEADER];
  req.headers[RAW_TARGET_HEADER] = req.url ?? "/";
  const reported = req.headers["x-forwarded-for"];
  if (reported) req.headers[REPORTED_FOR_HEADER] = reported;
  else delete req.headers[REPORTED_FOR_HEADER];
}

function firstValue(header: string | string[] | undefined, lower = true): string | undefined {
  const value = Array.isArray(header) ? header[0] : header;
  const first = value?.split(",")[0]?.trim();
  return lower ? first?.toLowerCase() : first;
}

const unmapIpv4 = (address: string) => address.replace(/^::ffff:(\d+\.\d+\.\d+\.\d+)$/i, "$1");

/** The vouched-for client address of a request; null when this process did not resolve one. */
export function clientIp(headers: HeaderReader): string | null {
  return installed.get() ? headers.get(CLIENT_IP_HEADER) : null;
}

/** The client's own X-Forwarded-For, for the record only. */
export function reportedForwardedFor(headers: HeaderReader): string | null {
  return installed.get() ? headers.get(REPORTED_FOR_HEADER) : null;
}

/**
 * The request as its client sent it, as far as this process vouches for it: the client's address,
 * the host it addressed, its protocol, and the request target byte for byte. Null fields where
 * this process did not resolve them (a server without the hook).
 */
export interface ClientView {
  ip: string | null;
  host: string | null;
  proto: "http" | "https";
  rawTarget: string | null;
}

export function clientView(headers: Headers): ClientView {
  const stamped = installed.get() === true;
  return {
    ip: stamped ? headers.get(CLIENT_IP_HEADER) : null,
    host: stamped ? headers.get(CLIENT_HOST_HEADER) : headers.get("host"),
    proto: arrivedOverHttps(headers) ? "https" : "http",
    rawTarget: stamped ? headers.get(RAW_TARGET_HEADER) : null,
  };
}

/** Whether the request reached us (or a trusted proxy in front of us) over https. */
export function arrivedOverHttps(headers: Headers): boolean {
  return installed.get() === true && headers.get(CLIENT_PROTO_HEADER) === "https";
}
