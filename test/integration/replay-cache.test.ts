import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_EFFECTIVE_POLICY, type EffectivePolicy } from "../../lib/core/policy";
import type { BeginDecision, CallRecord } from "../../lib/core/record";
import { GateService } from "../../lib/server/gate/gate-service";
import { recordEvent } from "../../lib/server/gate/gate-events";
import { LeaseTokens } from "../../lib/server/gate/lease-tokens";
import type { PolicySource } from "../../lib/server/policies/policy-source";
import { createProjectWithKey } from "../../lib/server/operators/projects";
import { openStore } from "../../lib/store/hot/open-gate-store";
import type { GateStore } from "../../lib/store/ports/gate-store";
import { PROVIDERS, SQLITE_WRITER, type TestDatabase, createTestDatabase } from "../helpers/databases";
import { sql } from "../helpers/sql";

/** Loops off (the tests replay one call many times); outcomes kept 60 s of the gates' own clock. */
const policy: EffectivePolicy = {
  ...DEFAULT_EFFECTIVE_POLICY,
  policy: { ...DEFAULT_EFFECTIVE_POLICY.policy, ttlSeconds: 60, loop: { ...DEFAULT_EFFECTIVE_POLICY.policy.loop, enabled: false } },
};
const policies: PolicySource = { forTool: async () => policy };
const secret = "replay-cache-test-secret";

/** The keys the store was asked to read records of (findRecordByKey, findRecordWithHistory): "" is no record read. */
function watched(store: GateStore): { store: GateStore; keysRead: string[] } {
  const keysRead: string[] = [];
  const proxy = new Proxy(store, {
    get(target, name, receiver) {
      const value = Reflect.get(target, name, receiver);
      if (typeof value !== "function") return value;
      return (...args: unknown[]) => {
        if (name === "findRecordByKey" || name === "findRecordWithHistory") keysRead.push(args[1] as string);
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
  return { store: proxy, keysRead };
}

const call = (runId: string) => ({ tool: "send_email", runId, stepId: "notify", scope: null, toolCallId: null, agentId: null, args: { to: "a@example.com" } });

function expectKind<K extends BeginDecision["decision"]>(decision: BeginDecision, kind: K): Extract<BeginDecision, { decision: K }> {
  expect(decision.decision, JSON.stringify(decision)).toBe(kind);
  return decision as Extract<BeginDecision, { decision: K }>;
}

/**
 * The per-process cache of completed records (lib/server/gate/replay-cache.ts), with two gates on
 * one database, each on its own connection and cache, as two server processes are: whatever the
 * other gate does to a record this one has cached (an eviction, a resend raising the key's
 * generation, an expiry, a purge and the key claimed again) is seen by this one's next begin; a
 * cached record never answers a stale replay. SQLite reads from the cache; Postgres reads the
 * record in the same statement as the policy and history, so it keeps no cache, and the same
 * answers are checked there.
 */
describe.each(PROVIDERS)("%s: replays from the per-process cache", (provider) => {
  let db: TestDatabase;
  let here: GateStore;
  let there: GateStore;
  let projectId: string;
  let now = Date.now();
  const clock = () => now;

  beforeAll(async () => {
    db = await createTestDatabase(provider);
    here = openStore({ databaseUrl: db.url, sqliteWriter: SQLITE_WRITER });
    there = openStore({ databaseUrl: db.url, sqliteWriter: SQLITE_WRITER });
    projectId = (await createProjectWithKey(here, "replay cache"))!.projectId;
  });

  afterAll(async () => {
    await here?.close();
    await there?.close();
    await db?.drop();
  });

  /** Gate A (watched) and gate B, one call executed and completed through A with `result`, then replayed twice on A. */
  async function cachedReplay(runId: string, result: unknown) {
    const watch = watched(here);
    const a = new GateService(watch.store, policies, { clock, leaseTokens: new LeaseTokens(secret) });
    const b = new GateService(there, policies, { clock, leaseTokens: new LeaseTokens(secret) });
    const first = expectKind(await a.begin(projectId, call(runId)), "execute");
    await a.complete(projectId, first.callId, first.leaseToken, { outcome: "succeeded", result });
    expectKind(await a.begin(projectId, call(runId)), "replay");
    watch.keysRead.length = 0;
    const cached = expectKind(await a.begin(projectId, call(runId)), "replay");
    expect(cached).toMatchObject({ callId: first.callId, result, replays: 2 });
    // SQLite: the second replay did not read the record; Postgres always does.
    if (provider === "sqlite") expect(watch.keysRead.filter((key) => key !== "")).toEqual([]);
    const record = (await there.findRecordById(projectId, first.callId))!;
    expect(record).toMatchObject({ state: "succeeded", replays: 2 });
    watch.keysRead.length = 0;
    return { a, b, first, record, keysRead: watch.keysRead };
  }

  it("repeated replays are counted exactly, each through the guarded write", async () => {
    const { a, first, record } = await cachedReplay("run_counts", { n: 1 });
    for (let n = 3; n <= 5; n++) expect(await a.begin(projectId, call("run_counts"))).toMatchObject({ decision: "replay", replays: n, callId: first.callId });
    expect((await there.findRecordById(projectId, first.callId))!).toMatchObject({ replays: 5, version: record.version });
  });

  it("an eviction through the other gate: the next begin here executes again, it does not replay", async () => {
    const { a, first, record, keysRead } = await cachedReplay("run_evict", { sent: "wrong" });
    const evicted: CallRecord = { ...record, state: "released", result: null, leaseExpiresAt: null, updatedAt: now, version: record.version + 1 };
    const event = recordEvent(evicted, { type: "operator", decision: "evicted", startedAt: performance.now(), at: now, policyVersion: 0 });
    expect(await there.updateRecord(evicted, record.version, event)).toBe(true);
    const again = expectKind(await a.begin(projectId, call("run_evict")), "execute");
    expect(again).toMatchObject({ callId: first.callId, attempt: 2 });
    // SQLite: the cached decision's write missed, and the begin was decided on a fresh read.
    if (provider === "sqlite") expect(keysRead).toContain(record.key);
  });

  it("a resend raising the key's generation through the other gate: the next begin here replays the new generation", async () => {
    const { a, record } = await cachedReplay("run_resend", { messageId: "m-1" });
    const raised: CallRecord = { ...record, generation: 2, version: record.version + 1, updatedAt: now };
    const raise = recordEvent(raised, { type: "resend", decision: "generation_raised", startedAt: performance.now(), at: now, policyVersion: 0 });
    expect(await there.updateRecord(raised, record.version, raise)).toBe(true);
    const resent: CallRecord = { ...record, id: `${record.id}_g2`, key: `${record.key}:g2`, generation: 2, result: JSON.stringify({ messageId: "m-2" }), replays: 0, version: 2 };
    expect(await there.insertRecord(resent, recordEvent(resent, { type: "begin", decision: "execute", startedAt: performance.now(), at: now, policyVersion: 0 }))).toBe(true);
    expect(await a.begin(projectId, call("run_resend"))).toMatchObject({ decision: "replay", callId: resent.id, key: resent.key, result: { messageId: "m-2" }, replays: 1 });
  });

  it("an expiry: the other gate claims the key again and completes it; the next begin here replays the new outcome", async () => {
    const { a, b } = await cachedReplay("run_expiry", { v: "old" });
    now += 61_000;
    const retaken = expectKind(await b.begin(projectId, call("run_expiry")), "execute");
    await b.complete(projectId, retaken.callId, retaken.leaseToken, { outcome: "succeeded", result: { v: "new" } });
    const replay = expectKind(await a.begin(projectId, call("run_expiry")), "replay");
    expect(replay).toMatchObject({ callId: retaken.callId, result: { v: "new" } });
  });

  it("a purge, then the key claimed again to the same version through the other gate: the id tells the records apart", async () => {
    const { a, b, record } = await cachedReplay("run_purge", { v: "purged" });
    await sql(db.url, "DELETE FROM call_records WHERE id = $1", [record.id]);
    const reclaimed = expectKind(await b.begin(projectId, call("run_purge")), "execute");
    const done = await b.complete(projectId, reclaimed.callId, reclaimed.leaseToken, { outcome: "succeeded", result: { v: "new" } });
    // The ABA case: same key, same version, another record.
    expect(done.version).toBe(record.version);
    expect(reclaimed.callId).not.toBe(record.id);
    expect(await a.begin(projectId, call("run_purge"))).toMatchObject({ decision: "replay", callId: reclaimed.callId, result: { v: "new" }, replays: 1 });
  });
});
