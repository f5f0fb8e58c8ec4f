import { IdempotencyConfig, makeIdempotent } from "@aws-lambda-powertools/idempotency";
import { CachePersistenceLayer } from "@aws-lambda-powertools/idempotency/cache";
import { createClient } from "@redis/client";
import { CLIENTS, type SubjectOrSkip, freshCall, replayCall } from "./types";

export const REDIS_URL = process.env.BENCH_REDIS_URL ?? "redis://127.0.0.1:6379";

type Payload = ReturnType<typeof freshCall>;

/**
 * The peer a user would otherwise pick: AWS Powertools' `makeIdempotent` with its cache
 * persistence layer on the local Redis (one multiplexed connection, no local cache — every call
 * asks Redis, as every gate call asks its store). A fresh call is SET NX, the function, SET; a
 * replay is the refused SET NX and a GET of the stored result.
 */
export interface PeerTarget {
  id: string;
  label: string;
  url: string;
}

/** The speed reference: the machine's Redis, in memory only. */
export const MEMORY_PEER: PeerTarget = { id: "peer.powertools-redis", label: "Powertools idempotency + Redis (in memory)", url: REDIS_URL };

/** The durability reference: a Redis that fsyncs every write before replying, as SQLite FULL does. */
export const durablePeer = (url: string): PeerTarget => ({ id: "peer.powertools-redis-aof", label: "Powertools idempotency + Redis (AOF, appendfsync always)", url });

export async function peerSubject(runTag: string, replayPool: number, target: PeerTarget = MEMORY_PEER): Promise<SubjectOrSkip & { redisVersion?: string }> {
  const base = { id: target.id, group: "peer" as const, label: target.label };
  const client = createClient({ url: target.url, socket: { connectTimeout: 2_000, reconnectStrategy: false } });
  client.on("error", () => undefined); // reported by connect() below, or by the call that hit it
  try {
    await client.connect();
  } catch (error) {
    return {
      ...base,
      skipped: `no Redis at ${target.url} (${(error as Error).message})`,
      workloads: [
        { name: "fresh", unit: "pairs", clients: [...CLIENTS.withEight] },
        { name: "replay", unit: "calls", clients: [...CLIENTS.standard] },
      ],
    };
  }
  const redisVersion = /redis_version:(\S+)/.exec(await client.info("server"))?.[1];
  const keyPrefix = `idemgate-bench-${runTag}`;
  const executed = new Set<string>();
  // Outside Lambda there is no invocation deadline: give it one, as a Lambda would, so an
  // in-progress record gets the lease-like expiry it is meant to have (and no warning per call).
  const config = new IdempotencyConfig({});
  config.registerLambdaContext({ getRemainingTimeInMillis: () => 30_000 } as Parameters<IdempotencyConfig["registerLambdaContext"]>[0]);
  const call = makeIdempotent(
    async (payload: Payload) => {
      executed.add(`${payload.runId}/${payload.step}`);
      return { ok: true };
    },
    { persistenceStore: new CachePersistenceLayer({ client }), config, keyPrefix },
  );

  const poolTag = "peer_pool";
  return {
    ...base,
    redisVersion,
    workloads: [
      {
        name: "fresh",
        unit: "pairs",
        clients: [...CLIENTS.withEight],
        op: async (seq, tag) => {
          const payload = freshCall(tag, seq);
          await call(payload);
          if (!executed.delete(`${payload.runId}/${payload.step}`)) throw new Error("peer: a fresh call did not execute");
        },
      },
      {
        name: "replay",
        unit: "calls",
        clients: [...CLIENTS.standard],
        prepare: async () => {
          for (let i = 0; i < replayPool; i += 16) {
            await Promise.all(Array.from({ length: Math.min(16, replayPool - i) }, (_, j) => call(replayCall(poolTag, i + j, replayPool))));
          }
          executed.clear();
        },
        op: async (seq) => {
          await call(replayCall(poolTag, seq, replayPool));
          if (executed.size > 0) throw new Error("peer: a replay executed the function");
        },
      },
    ],
    close: async () => {
      // Only this run's keys: the Redis may be shared.
      for await (const keys of client.scanIterator({ MATCH: `${keyPrefix}*`, COUNT: 1000 })) {
        if (keys.length > 0) await client.del(keys);
      }
      await client.close();
    },
  };
}
