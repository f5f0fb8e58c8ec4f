import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_EFFECTIVE_POLICY, type EffectivePolicy } from "../../lib/core/policy";
import type { BeginDecision } from "../../lib/core/record";
import { AppError } from "../../lib/server/app-error";
import { GateService } from "../../lib/server/gate/gate-service";
import { LeaseTokens } from "../../lib/server/gate/lease-tokens";
import type { PolicySource } from "../../lib/server/policies/policy-source";
import { createProjectWithKey } from "../../lib/server/operators/projects";
import { openStore } from "../../lib/store/hot/open-gate-store";
import type { GateStore } from "../../lib/store/ports/gate-store";
import { PROVIDERS, SQLITE_WRITER, type TestDatabase, createTestDatabase } from "../helpers/databases";

/** Leases of 1 s, so a second gate can take a call over; loops on (the default). */
const shortLease: EffectivePolicy = { ...DEFAULT_EFFECTIVE_POLICY, policy: { ...DEFAULT_EFFECTIVE_POLICY.policy, leaseSeconds: 1, leaseGraceSeconds: 0 } };
const policies: PolicySource = { forTool: async () => shortLease };

/** Counts the store's calls by method name; the store itself is untouched. */
function counted(store: GateStore): { store: GateStore; calls: Record<string, number> } {
  const calls: Record<string, number> = {};
  const proxy = new Proxy(store, {
    get(target, name, receiver) {
      const value = Reflect.get(target, name, receiver);
      if (typeof value !== "function") return value;
      return (...args: unknown[]) => {
        calls[String(name)] = (calls[String(name)] ?? 0) + 1;
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
  return { store: proxy, calls };
}

const call = (runId: string) => ({ tool: "charge_card", runId, stepId: "charge", scope: null, toolCallId: null, agentId: null, args: { amount: 5 } });

function leaseOf(decision: BeginDecision): { callId: string; leaseToken: string } {
  if (decision.decision !== "execute") throw new Error(`expected execute, got ${decision.decision}`);
  return { callId: decision.callId, leaseToken: decision.leaseToken };
}

/**
 * #21 item 4 / #15: a begin reads its record and the run's loop history in one store call, and a
 * complete of a lease this process handed out writes on the record it stored, without reading it
 * back. The version check must still decide: a record changed by another gate since is decided on
 * what is stored.
 */
describe.each(PROVIDERS)("%s: hot-path reads", (provider) => {
  let db: TestDatabase;
  let raw: GateStore;
  let projectId: string;
  const secret = "hot-path-reads-test-secret";

  beforeAll(async () => {
    db = await createTestDatabase(provider);
    raw = openStore({ databaseUrl: db.url, sqliteWriter: SQLITE_WRITER });
    projectId = (await createProjectWithKey(raw, "hot path"))!.projectId;
  });

  afterAll(async () => {
    await raw?.close();
    await db?.drop();
  });

  it("a fresh begin reads once, its complete writes without a read, and the replay reads once", async () => {
    const { store, calls } = counted(raw);
    const gate = new GateService(store, policies, { leaseTokens: new LeaseTokens(secret) });
    const { callId, leaseToken } = leaseOf(await gate.begin(projectId, call("run_counts")));
    // Postgres reads and claims in one statement (beginStatement); SQLite reads, then claims.
    const reads = provider === "postgres" ? "beginStatement" : "findRecordWithHistory";
    if (provider === "postgres") expect(calls).toMatchObject({ beginStatement: 1 });
    else expect(calls).toMatchObject({ findRecordWithHistory: 1, insertRecord: 1 });
    expect(calls.findRecordByKey ?? 0).toBe(0);
    expect(calls.loopHistory ?? 0).toBe(0);
    const done = await gate.complete(projectId, callId, leaseToken, { outcome: "succeeded", result: { ok: 1 } });
    expect(done.state).toBe("succeeded");
    expect(calls.findRecordById ?? 0).toBe(0);
    expect(calls.updateRecord).toBe(1);
    const replay = await gate.begin(projectId, call("run_counts"));
    expect(replay).toMatchObject({ decision: "replay", callId, result: { ok: 1 } });
    expect(calls[reads]).toBe(2);
    expect(calls.findRecordWithHistory ?? 0).toBe(provider === "postgres" ? 0 : 2);
    // What the complete stored is what a fresh read finds.
    expect(await raw.findRecordById(projectId, callId)).toMatchObject({ state: "succeeded", version: done.version, result: JSON.stringify({ ok: 1 }) });
  });

  it("a complete whose remembered record was taken over by another gate is the real lease_lost, decided on what is stored", async () => {
    const first = new GateService(raw, policies, { leaseTokens: new LeaseTokens(secret) });
    const second = new GateService(raw, policies, { leaseTokens: new LeaseTokens(secret) });
    const lease = leaseOf(await first.begin(projectId, call("run_takeover")));
    // The first lease lapses; the second gate runs the call again (attempt 2).
    let retaken: BeginDecision | undefined;
    for (const deadline = Date.now() + 60_000; Date.now() < deadline; ) {
      retaken = await second.begin(projectId, call("run_takeover"));
      if (retaken.decision === "execute") break;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    const again = leaseOf(retaken!);
    expect(again.callId).toBe(lease.callId);
    // The first gate still remembers attempt 1 as it stored it: its complete must not win.
    const lost = await first.complete(projectId, lease.callId, lease.leaseToken, { outcome: "succeeded", result: { by: "first" } }).then(
      () => null,
      (error: unknown) => error,
    );
    expect(lost).toBeInstanceOf(AppError);
    expect((lost as AppError).code).toBe("lease_lost");
    const events = await raw.listEventsForCall(projectId, lease.callId);
    expect(events.filter((event) => event.type === "lease_lost")).toHaveLength(1);
    // The second attempt completes; the first gate's retry of its own complete is lease_lost again, not a success.
    const done = await second.complete(projectId, again.callId, again.leaseToken, { outcome: "succeeded", result: { by: "second" } });
    expect(done).toMatchObject({ state: "succeeded", attempt: 2 });
    await expect(first.complete(projectId, lease.callId, lease.leaseToken, { outcome: "succeeded", result: { by: "first" } })).rejects.toMatchObject({ code: "lease_lost" });
    expect(await raw.findRecordById(projectId, lease.callId)).toMatchObject({ state: "succeeded", result: JSON.stringify({ by: "second" }) });
  });

  it("a complete already stored through another gate is answered as stored (a retried complete), not written twice", async () => {
    const first = new GateService(raw, policies, { leaseTokens: new LeaseTokens(secret) });
    const second = new GateService(raw, policies, { leaseTokens: new LeaseTokens(secret) });
    const lease = leaseOf(await first.begin(projectId, call("run_retried")));
    const stored = await second.complete(projectId, lease.callId, lease.leaseToken, { outcome: "succeeded", result: { n: 1 } });
    const answered = await first.complete(projectId, lease.callId, lease.leaseToken, { outcome: "succeeded", result: { n: 1 } });
    expect(answered).toMatchObject({ state: "succeeded", version: stored.version });
    const completes = (await raw.listEventsForCall(projectId, lease.callId)).filter((event) => event.type === "complete");
    expect(completes).toHaveLength(1);
  });

  it("a heartbeat moves the remembered record on, so the lease's complete still writes at once", async () => {
    const { store, calls } = counted(raw);
    const gate = new GateService(store, policies, { leaseTokens: new LeaseTokens(secret) });
    const lease = leaseOf(await gate.begin(projectId, call("run_beat")));
    await gate.heartbeat(projectId, lease.callId, lease.leaseToken, 30);
    const done = await gate.complete(projectId, lease.callId, lease.leaseToken, { outcome: "succeeded", result: {} });
    expect(done.state).toBe("succeeded");
    expect(calls.findRecordById ?? 0).toBe(0);
    expect(calls.updateRecord).toBe(2);
  });

  it("the one-statement read returns the run's loop steps newest first, and no record for an unknown key", async () => {
    const gate = new GateService(raw, policies, { leaseTokens: new LeaseTokens(secret) });
    for (const step of ["a", "b", "c"]) {
      const lease = leaseOf(await gate.begin(projectId, { ...call("run_history"), stepId: step, tool: `tool_${step}` }));
      await gate.complete(projectId, lease.callId, lease.leaseToken, { outcome: "succeeded", result: {} });
    }
    const read = await raw.findRecordWithHistory(projectId, "no-such-key", "run_history", 2);
    expect(read.record).toBeNull();
    expect(read.history.map((step) => step.tool)).toEqual(["tool_c", "tool_b"]);
    expect(read.history).toEqual(await raw.loopHistory(projectId, "run_history", 2));
  });
});
