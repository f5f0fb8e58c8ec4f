import { InProcessTransport } from "../../lib/sdk";
import type { CallRecord } from "../../lib/core/record";
import { createProjectWithKey } from "../../lib/server/operators/projects";
import { benchApp } from "../setup/bench-app";
import type { SqliteSynchronous } from "../../lib/store/hot/sqlite/gate-store";
import type { GateEvent, GateStore } from "../../lib/store/ports/gate-store";
import { benchPolicies } from "./bench-policy";
import { SEED_ARGS, SEED_TOOL, seedCall, seedGateDatabase } from "../setup/seed";
import { CLIENTS, type Subject, freshCall, replayCall } from "./types";

/** Coprime with every record count of the form 2^a·5^b: walks all seeded keys once per pass. */
const STRIDE = 7_919;
/** Keys completed just before the recency cell, replayed in rotation (a multiple of REPLAY_RUN_SIZE). */
const RECENT_KEYS = 256;
const RECENT_TAG = "recent";

export interface GrowthDatabase {
  databaseUrl: string;
  sqliteSynchronous: SqliteSynchronous;
  projectId: string;
  template: { record: CallRecord; event: GateEvent };
}

/** A project and one call written by the gate itself: the seed copies every column it does not vary. */
export async function prepareGrowthDatabase(databaseUrl: string, sqliteSynchronous: SqliteSynchronous): Promise<GrowthDatabase> {
  const app = benchApp(databaseUrl, sqliteSynchronous);
  const { store } = app.gate;
  try {
    const created = await createProjectWithKey(store, "bench growth");
    if (!created) throw new Error("project id collision");
    const transport = new InProcessTransport({ store, projectId: created.projectId, policies: benchPolicies });
    const claim = await transport.begin({ tool: SEED_TOOL, runId: "template_run", stepId: "template", args: SEED_ARGS });
    if (claim.decision !== "execute") throw new Error(`template begin: ${claim.decision}`);
    await transport.complete(claim.callId, { leaseToken: claim.leaseToken, outcome: "succeeded", result: { ok: true } });
    const record = await store.findRecordById(created.projectId, claim.callId);
    const event = (await store.listEventsForCall(created.projectId, claim.callId)).find((e) => e.type === "begin");
    if (!record || !event) throw new Error("template record not found");
    return { databaseUrl, sqliteSynchronous, projectId: created.projectId, template: { record, event } };
  } finally {
    // The seed has the database to itself (SQLite: it loads without a journal, then back to WAL).
    await app.close();
  }
}

/** `loading` settles once the load runs (so the caller can seed another store meanwhile), `done` when it is in. */
export function seedGrowthDatabase(db: GrowthDatabase, records: number, events: number, now: number): { loading: Promise<void>; done: Promise<void> } {
  let loaded!: () => void;
  const loading = new Promise<void>((resolve) => (loaded = resolve));
  const done = seedGateDatabase({ databaseUrl: db.databaseUrl, projectId: db.projectId, template: db.template, records, events, now, onLoading: loaded });
  done.catch(() => loaded());
  return { loading, done };
}

export interface GrowthOptions {
  id: string;
  label: string;
  floorId?: string;
  records: number;
}

export type GrowthSubject = Subject & { projectId: string; store: GateStore };

/**
 * Begin latency against a store already holding `records` completed records (and as many ledger
 * events): a begin on a new key (execute: an insert into the big unique index and the ledger) and
 * a begin on a stored key spread over the whole table (replay). In-process, one client, so the
 * figure is the store's and not the framework's.
 */
export function growthSubject(db: GrowthDatabase, options: GrowthOptions): GrowthSubject {
  const app = benchApp(db.databaseUrl, db.sqliteSynchronous);
  const { store } = app.gate;
  const transport = new InProcessTransport({ store, projectId: db.projectId, policies: benchPolicies });
  const begin = async (call: { tool?: string; runId: string; step: string; args: unknown }, expected: string) => {
    const decision = await transport.begin({ tool: call.tool ?? SEED_TOOL, runId: call.runId, stepId: call.step, args: call.args });
    if (decision.decision !== expected) throw new Error(`growth begin: expected ${expected}, got ${JSON.stringify(decision).slice(0, 300)}`);
  };
  return {
    id: options.id,
    group: "growth",
    label: options.label,
    floorId: options.floorId,
    projectId: db.projectId,
    store,
    workloads: [
      { name: "begin-fresh", unit: "begins", clients: [...CLIENTS.single], op: (seq, tag) => begin(freshCall(tag, seq), "execute") },
      { name: "begin-replay", unit: "begins", clients: [...CLIENTS.single], op: (seq) => begin(seedCall((seq * STRIDE) % options.records), "replay") },
      {
        // What an agent re-asking after a lost result looks like: keys completed in the last
        // minute (the newest rows of the big table), not a cold walk over all of them.
        name: "begin-replay-recent",
        unit: "begins",
        clients: [...CLIENTS.single],
        prepare: async () => {
          for (let i = 0; i < RECENT_KEYS; i++) {
            const call = replayCall(RECENT_TAG, i, RECENT_KEYS);
            const claim = await transport.begin({ tool: SEED_TOOL, runId: call.runId, stepId: call.step, args: call.args });
            if (claim.decision !== "execute") throw new Error(`growth recent keys: expected execute, got ${claim.decision}`);
            await transport.complete(claim.callId, { leaseToken: claim.leaseToken, outcome: "succeeded", result: { ok: true } });
          }
        },
        op: (seq) => begin(replayCall(RECENT_TAG, seq, RECENT_KEYS), "replay"),
      },
    ],
    close: () => app.close(),
  };
}
