import Database from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import { budgetExceeded } from "../../../lib/core/budget";
import { newId } from "../../../lib/server/ids";
import { createProjectWithKey } from "../../../lib/server/projects";
import { eventValues } from "../../../lib/store/hot/shared/columns";
import { toSqliteParams } from "../../../lib/store/hot/shared/statements";
import { SqliteGateStore } from "../../../lib/store/hot/sqlite/gate-store";
import { WRITE_SQL, type WriteOp, type WriteRunner, applyWriteOp } from "../../../lib/store/hot/sqlite/write-ops";
import type { GateEvent } from "../../../lib/store/ports/gate-store";
import { migratedSqliteFile } from "../../helpers/migrated-sqlite";

/** The write-behind ledger's batch of replays: a batch whose commit was in doubt is written again. */
describe("a batch of replay lines written behind (SQLite write op)", () => {
  const closing: (() => unknown)[] = [];
  afterEach(async () => {
    for (const close of closing.splice(0)) await close();
  });

  it("counts each replay once, however often its batch is written", async () => {
    const file = await migratedSqliteFile("write_ops");
    const store = new SqliteGateStore(file, { backgroundCheckpoints: false });
    closing.push(() => store.close());
    const projectId = (await createProjectWithKey(store, "write ops"))!.projectId;
    const now = Date.now();
    const id = newId("call", now);
    const record = {
      id, projectId, key: `k_${id}`, tool: "send_email", runId: "run_w", stepId: "s", scope: null, agentId: null, toolCallId: null,
      strategy: "step" as const, argsFingerprint: "fp", args: null, state: "succeeded" as const, attempt: 1, leaseToken: null,
      leaseExpiresAt: null, result: "{}", error: null, replays: 0, firstSeenAt: now, completedAt: now, expiresAt: now + 60_000,
      updatedAt: now, version: 1, policyVersion: 0, generation: 0, compensation: null,
    };
    const line = (decision: string): GateEvent => ({
      id: newId("evt", now), projectId, callId: id, key: record.key, tool: record.tool, runId: record.runId, agentId: null, toolCallId: null,
      type: "begin", decision, attempt: 1, argsMismatch: false, latencyUs: 1, at: now, policyVersion: 0, detail: null, argsFingerprint: "fp",
      loopStep: false, shadowDecision: null,
    });
    expect(await store.insertRecord(record, line("execute"))).toBe(true);

    const db = new Database(file);
    closing.push(() => db.close());
    const statements = new Map(Object.entries(WRITE_SQL).map(([name, text]) => [name, db.prepare(toSqliteParams(text))]));
    const bind = (params: unknown[]) => Object.fromEntries(params.map((value, i) => [i + 1, value]));
    const runner: WriteRunner = {
      run: (name, params) => statements.get(name)!.run(bind(params)),
      get: (name, params) => statements.get(name)!.get(bind(params)) as Record<string, unknown> | undefined,
    };
    // Two replays and an in_progress line (which counts nothing), in one batch.
    const batch: WriteOp = { kind: "events", sql: "insertEventOnce", events: [line("replay"), line("in_progress"), line("replay")].map(eventValues), counting: [true, false, true] };
    const write = () => db.transaction(() => applyWriteOp(runner, batch, budgetExceeded))();
    const replays = () => (db.prepare("SELECT replays FROM call_records WHERE id = ?").get(id) as { replays: number }).replays;
    const lines = () => (db.prepare("SELECT COUNT(*) AS n FROM events WHERE call_id = ?").get(id) as { n: number }).n;

    write();
    expect(replays()).toBe(2);
    expect(lines()).toBe(4);
    // Written again (its first commit was in doubt): the lines are there, so nothing is counted twice.
    write();
    expect(replays()).toBe(2);
    expect(lines()).toBe(4);
  });
});
