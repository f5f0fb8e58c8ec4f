import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type pg from "pg";
import type { BeginDecision } from "../../lib/core/record";
import { GateService } from "../../lib/server/gate/gate-service";
import { LeaseTokens } from "../../lib/server/gate/lease-tokens";
import { StorePolicySource } from "../../lib/server/policies/policy-source";
import { createProjectWithKey } from "../../lib/server/operators/projects";
import { parseDatabaseUrl } from "../../lib/store/connection/database-url";
import { createPgPool, createRelaxedPgPool } from "../../lib/store/connection/pg-pool";
import { PostgresGateStore } from "../../lib/store/hot/postgres/gate-store";
import { PROVIDERS, type TestDatabase, createTestDatabase } from "../helpers/databases";

/**
 * #21 item 4: on Postgres a decision is one round trip. Every statement the hot store's pool sends
 * is counted (its clients' `query`), with the policy source a server uses (the store's layers), so
 * the policy read is part of what is counted. The write-behind ledger's batches (decision-only
 * lines, written after the answer) are counted apart.
 */
describe.runIf(PROVIDERS.includes("postgres"))("postgres: round trips per decision", () => {
  let db: TestDatabase;
  let store: PostgresGateStore;
  let gate: GateService;
  let projectId: string;
  /** Every statement, and which of the store's pools sent it. */
  const sent: { pool: "durable" | "relaxed"; text: string }[] = [];
  let durable: pg.Pool;
  let relaxed: pg.Pool;

  beforeAll(async () => {
    db = await createTestDatabase("postgres");
    const target = parseDatabaseUrl(db.url);
    if (target.provider !== "postgres") throw new Error("expected a Postgres URL");
    // The two pools openStore gives a Postgres gate store (createRelaxedPgPool).
    durable = createPgPool(target);
    relaxed = createRelaxedPgPool(target, 2);
    for (const [pool, name] of [[durable, "durable"], [relaxed, "relaxed"]] as const) {
      pool.on("connect", (client: pg.PoolClient) => {
        const query = client.query.bind(client) as (...args: unknown[]) => unknown;
        (client as { query: unknown }).query = (...args: unknown[]) => {
          const config = args[0] as string | { text: string };
          sent.push({ pool: name, text: typeof config === "string" ? config : config.text });
          return query(...args);
        };
      });
    }
    store = new PostgresGateStore(durable, { relaxed });
    gate = new GateService(store, new StorePolicySource(store), { leaseTokens: new LeaseTokens("round-trips-test") });
    projectId = (await createProjectWithKey(store, "round trips"))!.projectId;
  });

  afterAll(async () => {
    await store?.close();
    await db?.drop();
  });

  const call = (runId: string, stepId: string) => ({ tool: "send_email", runId, stepId, scope: null, toolCallId: null, agentId: null, args: { stepId } });

  /** The statements `work` sent, the ledger's batches apart, and those sent on the relaxed pool. */
  async function statements<T>(work: () => Promise<T>): Promise<{ result: T; own: number; ledger: number; relaxed: string[] }> {
    await store.settleLedger();
    sent.length = 0;
    const result = await work();
    await store.settleLedger();
    const ledger = sent.filter(({ text }) => text.includes("unnest(")).length;
    return { result, own: sent.length - ledger, ledger, relaxed: sent.filter(({ pool }) => pool === "relaxed").map(({ text }) => text) };
  }

  function lease(decision: BeginDecision): { callId: string; leaseToken: string } {
    if (decision.decision !== "execute") throw new Error(`expected execute, got ${decision.decision}`);
    return decision;
  }

  async function writePolicy(overrides: string, expectedVersion: number, revision: string): Promise<number> {
    const version = await store.writePolicy({ projectId, tool: "send_email", overrides, expectedVersion, before: null, at: Date.now(), author: "test", reason: "round trips", revisionId: revision, restoredFrom: null });
    return version!;
  }

  it("a fresh begin, a heartbeat, the complete and an in_progress begin are one statement each; a replay is two", async () => {
    // A process's first begins of a tool learn its policy (and discover the tool): not counted.
    for (const step of ["warm1", "warm2"]) {
      const warm = lease(await gate.begin(projectId, call("run_warm", step)));
      await gate.complete(projectId, warm.callId, warm.leaseToken, { outcome: "succeeded", result: {} });
    }

    const fresh = await statements(() => gate.begin(projectId, call("run_a", "s1")));
    expect(fresh.own).toBe(1);
    const { callId, leaseToken } = lease(fresh.result);

    const held = await statements(() => gate.begin(projectId, call("run_a", "s1")));
    expect(held.result.decision).toBe("in_progress");
    expect(held.own).toBe(1);
    // Its ledger line is written behind the answer, in a batch.
    expect(held.ledger).toBe(1);

    const beat = await statements(() => gate.heartbeat(projectId, callId, leaseToken, 60));
    expect(beat.own).toBe(1);

    const complete = await statements(() => gate.complete(projectId, callId, leaseToken, { outcome: "succeeded", result: { sent: true } }));
    expect(complete.result.state).toBe("succeeded");
    expect(complete.own).toBe(1);

    // The replay's counter is committed with its answer (exact across instances): read, then count.
    const replay = await statements(() => gate.begin(projectId, call("run_a", "s1")));
    expect(replay.result).toMatchObject({ decision: "replay", callId, result: { sent: true }, replays: 1 });
    expect(replay.own).toBe(2);

    // What was claimed and completed in one statement each is stored with its events.
    const events = await store.listEventsForCall(projectId, callId);
    expect(events.map((event) => `${event.type}:${event.decision}`)).toEqual(["begin:execute", "begin:in_progress", "heartbeat:extended", "complete:succeeded", "begin:replay"]);
  });

  it("a replay and the decision-only lines commit on connections that do not wait for the disk; claims, heartbeats and completions on ones that do", async () => {
    const setting = async (pool: pg.Pool) => (await pool.query("SHOW synchronous_commit")).rows[0].synchronous_commit as string;
    expect(await setting(relaxed)).toBe("off");
    expect(await setting(durable)).toBe("on");

    const fresh = await statements(() => gate.begin(projectId, call("run_d", "s1")));
    const { callId, leaseToken } = lease(fresh.result);
    expect(fresh.relaxed).toEqual([]);
    const held = await statements(() => gate.begin(projectId, call("run_d", "s1")));
    expect(held.result.decision).toBe("in_progress");
    // The read decides on the durable pool; only the batch with its ledger line is relaxed.
    expect(held.relaxed).toHaveLength(1);
    expect(held.relaxed[0]).toContain("unnest(");
    expect((await statements(() => gate.heartbeat(projectId, callId, leaseToken, 60))).relaxed).toEqual([]);
    expect((await statements(() => gate.complete(projectId, callId, leaseToken, { outcome: "succeeded", result: {} }))).relaxed).toEqual([]);

    const replay = await statements(() => gate.begin(projectId, call("run_d", "s1")));
    expect(replay.result).toMatchObject({ decision: "replay", callId, replays: 1 });
    expect(replay.relaxed).toHaveLength(1);
    expect(replay.relaxed[0]).toContain("replays = replays + 1");
    // Counted, and on the ledger, like the durable lines.
    expect((await store.findRecordById(projectId, callId))!.replays).toBe(1);
    expect((await store.listEventsForCall(projectId, callId)).map((event) => event.decision)).toEqual(["execute", "in_progress", "extended", "succeeded", "replay"]);
  });

  it("a policy changed by an operator decides the very next begin and complete, at one more statement each", async () => {
    const first = lease(await gate.begin(projectId, call("run_b", "s1")));
    const v1 = await writePolicy(`{"ttlSeconds":600}`, 0, "rev_rt_1");

    // The complete was planned under the policy seen before: its write does not apply, and it is
    // planned again under the one in force.
    const before = Date.now();
    const complete = await statements(() => gate.complete(projectId, first.callId, first.leaseToken, { outcome: "succeeded", result: {} }));
    expect(complete.own).toBe(2);
    expect(complete.result.expiresAt).toBeGreaterThanOrEqual(before + 600_000);
    expect(complete.result.expiresAt).toBeLessThan(Date.now() + 601_000);
    const completes = (await store.listEventsForCall(projectId, first.callId)).filter((event) => event.type === "complete");
    expect(completes.map((event) => event.policyVersion)).toEqual([v1]);

    // A begin's claim is guarded the same way: the next begin claims under the policy in force.
    const v2 = await writePolicy(`{"ttlSeconds":1200}`, v1, "rev_rt_2");
    expect(v2).toBe(v1 + 1);
    const fresh = await statements(() => gate.begin(projectId, call("run_b", "s2")));
    expect(fresh.own).toBe(2);
    const claimed = lease(fresh.result);
    const record = await store.findRecordById(projectId, claimed.callId);
    expect(record!.expiresAt).toBeGreaterThanOrEqual(Date.now() + 1_100_000);
    // A heartbeat without an extension takes the lease the policy in force sets.
    await writePolicy(`{"ttlSeconds":1200,"leaseSeconds":45}`, v1 + 1, "rev_rt_3");
    const beat = await statements(() => gate.heartbeat(projectId, claimed.callId, claimed.leaseToken));
    expect(beat.own).toBe(2);
    expect(beat.result.leaseExpiresAt).toBeLessThanOrEqual(Date.now() + 45_000);
    expect(beat.result.leaseExpiresAt).toBeGreaterThan(Date.now() + 30_000);
    // Learned: the next pair is one statement each again.
    const next = await statements(() => gate.begin(projectId, call("run_b", "s3")));
    expect(next.own).toBe(1);
    const done = await statements(() => gate.complete(projectId, lease(next.result).callId, lease(next.result).leaseToken, { outcome: "succeeded", result: {} }));
    expect(done.own).toBe(1);
  });

  it("a begin that repeats a step of its run is not claimed blind: the loop detector still blocks the third repeat", async () => {
    // Same tool and args under new step ids: each is a new key, but the same signature.
    const same = (step: string) => ({ ...call("run_loop", step), args: { to: "a@example.com" } });
    for (const step of ["l1", "l2"]) {
      const leased = lease(await gate.begin(projectId, same(step)));
      await gate.complete(projectId, leased.callId, leased.leaseToken, { outcome: "succeeded", result: {} });
    }
    const third = await gate.begin(projectId, same("l3"));
    expect(third).toMatchObject({ decision: "blocked", reason: "loop_detected", repeats: 3 });
  });
});
