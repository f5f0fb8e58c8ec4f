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
  const reported = req.headers["x-forwarded-for"];
  if (reported) req.headers[REPORTED_FOR_HEADER] = reported;
  else delete req.headers[REPORTED_FOR_HEADER];
}

function firstValue(header: string | string[] | undefined): string | undefined {
  const value = Array.isArray(header) ? header[0] : header;
  return value?.split(",")[0]?.trim().toLowerCase();
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

/** Whether the request reached us (or a trusted proxy in front of us) over https. */
export function arrivedOverHttps(headers: Headers): boolean {
  return installed.get() === true && headers.get(CLIENT_PROTO_HEADER) === "https";
}
