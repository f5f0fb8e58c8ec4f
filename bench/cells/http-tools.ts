import { randomUUID } from "node:crypto";
import { KeepAliveClient } from "../http-client";
import type { Subject } from "./types";

/** What the HTTP-tools cells send to: the same Express handler with and without the middleware, and one upstream directly and through /gw. */
export interface HttpToolsTargets {
  /** Express refunds server whose middleware asks the gate in process (SQLite). */
  inProcessTools: string;
  /** The same server asking the gate over HTTP (`next start`). */
  httpTools: string;
  /** The charges API the gateway fronts, called directly. */
  upstream: string;
  /** `next start` serving `/gw/pay/…` in front of `upstream`. */
  gateway: string;
  apiKey: string;
  close(): Promise<void>;
}

const CLIENTS = [1];

/**
 * Issue #19's latency cells: every operation is one POST with a fresh Idempotency-Key (so every
 * request executes), and each gated subject is compared with its ungated floor: the Express handler
 * without the middleware, the upstream without the gateway. The table's p50/p99 × floor and the
 * "added latency" lines read off the same run.
 */
export function httpToolsSubjects(targets: HttpToolsTargets): Subject[] {
  const clients: KeepAliveClient[] = [];
  const subject = (id: string, label: string, baseUrl: string, path: string, floorId?: string, headers: Record<string, string> = {}): Subject => {
    const client = new KeepAliveClient(baseUrl, headers);
    clients.push(client);
    return {
      id,
      group: "httptools",
      label,
      floorId,
      workloads: [
        {
          name: "fresh",
          unit: "requests",
          clients: CLIENTS,
          op: async (seq, tag) => {
            const key = `${tag}-${seq}-${randomUUID().slice(0, 8)}`;
            const res = await client.post(path, { id: key, amount: 1 }, { "idempotency-key": key });
            if (res.status >= 300) throw new Error(`${path}: ${res.status} ${JSON.stringify(res.body).slice(0, 300)}`);
          },
        },
      ],
      close: async () => undefined,
    };
  };
  const subjects = [
    subject("httptools.handler", "Express handler, no middleware", targets.inProcessTools, "/v1/direct"),
    subject("httptools.middleware-inprocess", "middleware, gate in process (SQLite)", targets.inProcessTools, "/v1/refunds", "httptools.handler"),
    subject("httptools.middleware-http", "middleware, gate over HTTP (next start, SQLite)", targets.httpTools, "/v1/refunds", "httptools.handler"),
    subject("httptools.upstream", "upstream called directly", targets.upstream, "/v1/charges"),
    subject("httptools.gateway", "upstream through /gw (next start, SQLite)", targets.gateway, "/gw/pay/v1/charges", "httptools.upstream", { authorization: `Bearer ${targets.apiKey}` }),
  ];
  // Closing any one closes everything the cells share (the run closes every subject).
  let closed: Promise<void> | undefined;
  const close = () => {
    closed ??= (async () => {
      for (const client of clients) client.close();
      await targets.close();
    })();
    return closed;
  };
  return subjects.map((s) => ({ ...s, close }));
}
