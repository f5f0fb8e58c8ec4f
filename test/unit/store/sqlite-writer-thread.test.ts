import Database from "better-sqlite3";
import { spawnSync } from "node:child_process";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { DEFAULT_EFFECTIVE_POLICY, type EffectivePolicy } from "../../../lib/core/policy";
import type { BeginDecision } from "../../../lib/core/record";
import { GateService } from "../../../lib/server/gate/gate-service";
import { LeaseTokens } from "../../../lib/server/gate/lease-tokens";
import type { PolicySource } from "../../../lib/server/policies/policy-source";
import { createProjectWithKey } from "../../../lib/server/operators/projects";
import { SqliteGateStore } from "../../../lib/store/hot/sqlite/gate-store";
import { StoreUnavailableError } from "../../../lib/store/ports/gate-store";
import { migratedSqliteFile } from "../../helpers/migrated-sqlite";

const policy: EffectivePolicy = DEFAULT_EFFECTIVE_POLICY;
const policies: PolicySource = { forTool: async () => policy };
const call = (runId: string, stepId = "charge") => ({ tool: "charge_card", runId, stepId, scope: null, toolCallId: null, agentId: null, args: { amount: 5 } });

function leaseOf(decision: BeginDecision): { callId: string; leaseToken: string } {
  if (decision.decision !== "execute") throw new Error(`expected execute, got ${decision.decision}`);
  return { callId: decision.callId, leaseToken: decision.leaseToken };
}

/**
 * #21 item 3: in worker mode every write commits on a writer thread's connection and the request
 * thread only reads. The gate's semantics must not change; and while the writer is held up inside
 * a transaction, the request thread keeps answering what needs no commit of its own.
 */
describe("SQLite gate store, writes on a writer thread", () => {
  const opened: SqliteGateStore[] = [];
  let holder: Database.Database | undefined;
  afterEach(async () => {
    if (holder?.inTransaction) holder.exec("ROLLBACK");
    holder?.close();
    holder = undefined;
    for (const store of opened.splice(0)) await store.close();
  });

  async function workerStore(file?: string, busyTimeoutMs = 5_000) {
    const path = file ?? (await migratedSqliteFile("writer"));
    const store = new SqliteGateStore(path, { writer: "worker", busyTimeoutMs, backgroundCheckpoints: false });
    opened.push(store);
    const projectId = (await createProjectWithKey(store, "writer thread"))!.projectId;
    const gate = new GateService(store, policies, { leaseTokens: new LeaseTokens("writer-thread-test-secret") });
    return { file: path, store, projectId, gate };
  }

  it.each(["writer", "checkpoints"])("close() holds the process until its %s thread has stopped: code after it runs even when nothing else keeps the process up", async (mode) => {
    const file = await migratedSqliteFile(`close_${mode}`);
    const child = spawnSync(process.execPath, ["--import", "tsx", path.join(import.meta.dirname, "writer-close-child.ts"), file, mode], { encoding: "utf8", timeout: 120_000 });
    expect(child.stderr).toBe("");
    expect(child.status).toBe(0);
    expect(child.stdout.trim()).toBe("closed");
  });

  it("claims, completes and replays as inline; what it answered is read back on the request thread and after a reopen", async () => {
    const { file, store, projectId, gate } = await workerStore();
    const { callId, leaseToken } = leaseOf(await gate.begin(projectId, call("run_a")));
    // A read right after the acknowledged write sees it (the writer answers after COMMIT).
    expect(await store.findRecordById(projectId, callId)).toMatchObject({ state: "in_progress" });
    const done = await gate.complete(projectId, callId, leaseToken, { outcome: "succeeded", result: { ok: 1 } });
    expect(done.state).toBe("succeeded");
    expect(await gate.begin(projectId, call("run_a"))).toMatchObject({ decision: "replay", callId, result: { ok: 1 }, replays: 1 });
    expect((await store.listEventsForCall(projectId, callId)).map((e) => e.decision)).toEqual(["execute", "succeeded", "replay"]);
    await store.close();
    opened.splice(opened.indexOf(store), 1);

    const reopened = new SqliteGateStore(file, { backgroundCheckpoints: false });
    opened.push(reopened);
    expect(await reopened.findRecordById(projectId, callId)).toMatchObject({ state: "succeeded", replays: 1 });
  });

  it("writes asked for in one turn share one commit, and the unique key lets exactly one of N identical begins execute", async () => {
    const { store, projectId, gate } = await workerStore();
    const decisions = await Promise.all(Array.from({ length: 10 }, () => gate.begin(projectId, call("run_race"))));
    expect(decisions.filter((d) => d.decision === "execute")).toHaveLength(1);
    // First begins of ten runs at once: a run's steps take turns (run-turns.ts), runs do not, so
    // their claims are asked for in one turn of the event loop and share commits.
    const before = store.commitCounts;
    const firsts = await Promise.all(Array.from({ length: 10 }, (_, i) => gate.begin(projectId, call(`run_batch_${i}`))));
    expect(firsts.map((d) => d.decision)).toEqual(Array(10).fill("execute"));
    const after = store.commitCounts;
    expect(after.writes - before.writes).toBeGreaterThan(after.commits - before.commits);
  });

  it("a turn that mixes relaxed and durable writes commits the relaxed ones in a transaction of their own, and both are kept", async () => {
    const { store, projectId, gate } = await workerStore();
    const { callId } = leaseOf(await gate.begin(projectId, call("run_mixed")));
    const event = (await store.listEventsForCall(projectId, callId))[0]!;
    const before = store.commitCounts;
    const [touched, inserted] = await Promise.all([
      store.discoverTool(projectId, "mixed_tool", 1),
      store.insertRecord({ ...(await store.findRecordById(projectId, callId))!, id: `${callId}_m`, key: "mixed_key" }, { ...event, id: `${event.id}_m`, callId: `${callId}_m` }),
    ]);
    expect([touched, inserted]).toEqual([undefined, true]);
    expect(store.commitCounts).toEqual({ commits: before.commits + 2, writes: before.writes + 2 });
    expect(await store.findRecordByKey(projectId, "mixed_key")).toMatchObject({ id: `${callId}_m` });
    expect(await store.findPolicyLayers(projectId, "mixed_tool")).toMatchObject([{ tool: "mixed_tool" }]);
  });

  it("budgets, policies and secrets are decided inside the writer's transaction", async () => {
    const { store, projectId, gate } = await workerStore();
    const charge = { calls: 1 as const, costMicros: 0, currency: "USD", maxCalls: 1, maxCostMicros: null, enforce: true };
    const first = leaseOf(await gate.begin(projectId, call("run_budget", "one")));
    const stored = (await store.findRecordById(projectId, first.callId))!;
    const event = (await store.listEventsForCall(projectId, first.callId))[0]!;
    const next = { ...stored, id: `${stored.id}_2`, key: `${stored.key}_2`, version: 1 };
    expect(await store.writeCharged({ op: "insert" }, next, { ...event, id: `${event.id}_2`, callId: next.id }, charge)).toEqual({ written: true });
    const third = { ...stored, id: `${stored.id}_3`, key: `${stored.key}_3`, version: 1 };
    expect(await store.writeCharged({ op: "insert" }, third, { ...event, id: `${event.id}_3`, callId: third.id }, charge)).toEqual({
      written: false,
      exceeded: { calls: 1, costMicros: 0, currency: "USD", maxCalls: null, maxCostMicros: null },
    });
    expect(await store.writeCharged({ op: "insert" }, next, { ...event, id: `${event.id}_4`, callId: next.id }, { ...charge, maxCalls: 5 })).toEqual({
      written: false,
      exceeded: null,
    });

    const write = { projectId, tool: "charge_card", overrides: "{}", at: 1, author: "test", expectedVersion: 0, revisionId: "rev_1", reason: "test", before: null, restoredFrom: null };
    expect(await store.writePolicy(write)).toBe(1);
    expect(await store.writePolicy({ ...write, revisionId: "rev_2" })).toBeNull();
    expect(await store.findPolicyLayers(projectId, "charge_card")).toMatchObject([{ tool: "charge_card", version: 1 }]);

    expect(await store.installSecret("s", "first", 1)).toBe("first");
    expect(await store.installSecret("s", "second", 2)).toBe("first");
  });

  it("while another connection holds the write lock, the request thread still answers reads and in-progress begins; the held claim commits once the lock is free", async () => {
    const { file, store, projectId, gate } = await workerStore(undefined, 120_000);
    const running = leaseOf(await gate.begin(projectId, call("run_held", "running")));
    holder = new Database(file);
    holder.exec("BEGIN IMMEDIATE");

    // The writer thread now waits for the lock inside its BEGIN IMMEDIATE, synchronously.
    let claimed: BeginDecision | null = null;
    const claim = gate.begin(projectId, call("run_held", "fresh")).then((decision) => (claimed = decision));
    expect(await gate.begin(projectId, call("run_held", "running"))).toMatchObject({ decision: "in_progress", callId: running.callId });
    expect(await store.findRecordById(projectId, running.callId)).toMatchObject({ state: "in_progress" });
    expect(claimed).toBeNull();

    holder.exec("ROLLBACK");
    await claim;
    expect(claimed).toMatchObject({ decision: "execute" });
  });

  it("a write that cannot have the lock is answered as unavailable (retryable), and the next one commits", async () => {
    const { file, store, projectId, gate } = await workerStore(undefined, 0);
    holder = new Database(file);
    holder.exec("BEGIN IMMEDIATE");
    await expect(gate.begin(projectId, call("run_busy"))).rejects.toBeInstanceOf(StoreUnavailableError);
    holder.exec("ROLLBACK");
    const { callId } = leaseOf(await gate.begin(projectId, call("run_busy")));
    expect(await store.findRecordById(projectId, callId)).toMatchObject({ state: "in_progress" });
  });
});
