import type { WireUpstream } from "../contract/upstreams";
import { stripUserinfo } from "../core/url-credentials";
import type { UpstreamRow } from "../store/prisma/upstream-repository";

/**
 * An upstream on the wire: `hasSecret` in place of the secret, which never leaves the server, and
 * its URL without userinfo (refused since #43; a row stored before keeps it, unshown and unsent).
 */
export function toWireUpstream(row: UpstreamRow): WireUpstream {
  return {
    id: row.id,
    name: row.name,
    kind: row.kind,
    transport: row.transport,
    url: row.url === null ? null : stripUserinfo(row.url),
    command: row.command,
    args: row.args,
    headers: row.headers,
    secretHeader: row.secretHeader,
    hasSecret: row.secretEnc !== null,
    idempotencyHeader: row.idempotencyHeader,
    maxStoredBytes: row.maxStoredBytes,
    version: row.version,
    createdAt: new Date(row.createdAt).toISOString(),
    updatedAt: new Date(row.updatedAt).toISOString(),
  };
}
