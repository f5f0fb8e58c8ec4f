import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CallRecord } from "../../lib/core/record";
import { newId } from "../../lib/server/ids";
import { openStore } from "../../lib/store/hot/open-gate-store";
import type { GateEvent, GateStore } from "../../lib/store/ports/gate-store";
import { PROVIDERS, SQLITE_WRITER, type TestDatabase, createTestDatabase } from "../helpers/databases";
import { createTestProject } from "../helpers/fixtures";
import { uniqueRun, uniqueTool } from "../helpers/policy-fixtures";
import { scalar, sql } from "../helpers/sql";
import { waitFor } from "../helpers/storm-scenario";

/** A store's write-behind counters (both hot stores expose them for tests and diagnostics). */
type WithLedgerState = GateStore & { ledgerState: { pending: number; batches: number; events: number } };

/** Ample for a loaded 2-core machine; the bound itself is 5 ms plus one commit (never asserted: bench measures). */
const BUDGET_MS = 30_000;
/** Long enough that nothing is written by the timer while a test looks at what is still queued. */
const NEVER_MS = 600_000;

function completedRecord(projectId: string, tool: string, runId: string, now: number): CallRecord {
  return {
    id: newId("call", now),
    projectId,
    key: `key_${newId("k", now)}`,
    tool,
    runId,
    stepId: "s",
    scope: null,
    agentId: null,
    toolCallId: null,
    strategy: "step",
    argsFingerprint: "fp",
    args: null,
    state: "succeeded",
    attempt: 1,
    leaseToken: null,
    leaseExpiresAt: null,
    result: "{}",
    error: null,
    replays: 0,
    firstSeenAt: now,
    completedAt: now,
    expiresAt: now + 86_400_000,
    updatedAt: now,
    version: 1,
    policyVersion: 0,
    generation: 0,
    compensation: null,
  };
}

function decisionEvent(record: Pick<CallRecord, "projectId" | "id" | "key" | "tool" | "runId">, decision: string, at: number, loopStep = false): GateEvent {
  return {
    id: newId("evt", at),
    projectId: record.projectId,
    callId: record.id,
    key: record.key,
    tool: record.tool,
    runId: record.runId,
    agentId: null,
    toolCallId: null,
    type: "begin",
    decision,
    attempt: 1,
    argsMismatch: false,
    latencyUs: 10,
    at,
    policyVersion: 0,
    detail: null,
    argsFingerprint: "fp",
    loopStep,
    shadowDecision: null,
  };
}

describe.each(PROVIDERS)("%s: the write-behind ledger of decision-only events", (provider) => {
  let db: TestDatabase;
  let projectId: string;
  const stores: GateStore[] = [];

  const open = (ledger?: { maxDelayMs?: number; batchSize?: number; capacity?: number }) => {
    const store = openStore({ databaseUrl: db.url, ledger, sqliteWriter: SQLITE_WRITER }) as WithLedgerState;
    stores.push(store);
    return store;
  };
  /** Read on a connection of the test's own: what another reader (or a restarted gate) would see. */
  const eventRows = (tool: string) => sql<{ id: string; decision: string }>(db.url, "SELECT id, decision FROM events WHERE project_id = $1 AND tool = $2 ORDER BY id", [projectId, tool]);

  beforeAll(async () => {
    db = await createTestDatabase(provider);
    projectId = (await createTestProject(db.url)).projectId;
  });

  afterAll(async () => {
    await Promise.all(stores.map((store) => store.close().catch(() => undefined)));
    await db?.drop();
  });

  it("a replay's counter is committed with the answer; a line written behind lands on the ledger by itself, with its rollup", async () => {
    const store = open();
    const tool = uniqueTool("replayed");
    const now = Date.now();
    const record = completedRecord(projectId, tool, uniqueRun("replay"), now);
    expect(await store.insertRecord(record, { ...decisionEvent(record, "execute", now), loopStep: true })).toBe(true);

    // Committed with its count: the replay of a tool whose loop detector blocks (GateService decides).
    expect(await store.recordReplay(record, record.version, decisionEvent(record, "replay", now, true), false)).toBe(1);
    expect((await eventRows(tool)).map((e) => e.decision)).toEqual(["execute", "replay"]);
    // Written behind.
    expect(await store.recordReplay(record, record.version, decisionEvent(record, "replay", now), true)).toBe(2);
    expect(await store.recordReplay(record, record.version, decisionEvent(record, "replay", now), true)).toBe(3);
    // The counter is on the record now, for every reader.
    expect(await scalar(db.url, "SELECT replays FROM call_records WHERE id = $1", [record.id])).toBe(3);
    // No settle, no other write: the batch's timer writes the two events.
    await waitFor(async () => (await eventRows(tool)).filter((e) => e.decision === "replay").length === 3, BUDGET_MS, "the replay events on the ledger");
    // The rollup trigger fired for each row of the batch.
    expect(await scalar(db.url, "SELECT total FROM event_rollups WHERE project_id = $1 AND tool = $2 AND kind = 'replay'", [projectId, tool])).toBe(3);
    expect(store.ledgerState.pending).toBe(0);
  });

  it("many decisions at once are written in a few batches, none lost", async () => {
    const store = open();
    const tool = uniqueTool("burst");
    const now = Date.now();
    const record = completedRecord(projectId, tool, uniqueRun("burst"), now);
    expect(await store.insertRecord(record, decisionEvent(record, "execute", now))).toBe(true);
    const before = store.ledgerState.batches;
    const decisions = ["in_progress", "refused", "conflict", "blocked"];
    await Promise.all(Array.from({ length: 300 }, (_, i) => store.appendDecision(decisionEvent(record, decisions[i % decisions.length]!, now))));
    await waitFor(async () => (await eventRows(tool)).length === 301, BUDGET_MS, "300 decision events on the ledger");
    const batches = store.ledgerState.batches - before;
    expect(batches).toBeGreaterThan(0);
    // Queued in one turn: written as batches of up to 64 rows, not 300 inserts.
    expect(batches).toBeLessThan(300 / 4);
  });

  it("the loop detector's read sees this process's queued steps; settling writes them; other readers wait for that", async () => {
    const store = open({ maxDelayMs: NEVER_MS, batchSize: 10_000 });
    const tool = uniqueTool("looped");
    const runId = uniqueRun("loop");
    const now = Date.now();
    const record = completedRecord(projectId, tool, runId, now);
    expect(await store.insertRecord(record, decisionEvent(record, "execute", now, true))).toBe(true);
    await store.appendDecision(decisionEvent(record, "refused", now, true));
    await store.appendDecision(decisionEvent(record, "in_progress", now, false));

    // Queued, not written: another connection sees only the execute.
    expect((await eventRows(tool)).map((e) => e.decision)).toEqual(["execute"]);
    // The gate's own loop read counts the queued refusal (a step) and not the in_progress (none).
    expect((await store.loopHistory(projectId, runId, 10)).map(({ tool, argsFingerprint }) => ({ tool, argsFingerprint }))).toEqual([
      { tool, argsFingerprint: "fp" },
      { tool, argsFingerprint: "fp" },
    ]);
    // A ledger read through the store settles first (read your own writes).
    expect((await store.listEventsForCall(projectId, record.id)).map((e) => e.decision)).toEqual(["execute", "refused", "in_progress"]);
    expect((await eventRows(tool)).map((e) => e.decision)).toEqual(["execute", "refused", "in_progress"]);
    // Once written, the steps are read from the ledger and not counted twice.
    expect(await store.loopHistory(projectId, runId, 10)).toHaveLength(2);
  });

  it("a full queue makes the next decision wait for a flush (backpressure), and close writes what is queued", async () => {
    const store = open({ maxDelayMs: NEVER_MS, batchSize: 10_000, capacity: 8 });
    const tool = uniqueTool("full");
    const now = Date.now();
    const record = completedRecord(projectId, tool, uniqueRun("full"), now);
    for (let i = 0; i < 8; i++) await store.appendDecision(decisionEvent(record, "in_progress", now));
    expect(store.ledgerState.pending).toBe(8);
    expect(await eventRows(tool)).toHaveLength(0);
    // The ninth waits until the eight are committed.
    await store.appendDecision(decisionEvent(record, "in_progress", now));
    expect(await eventRows(tool)).toHaveLength(8);
    expect(store.ledgerState.pending).toBe(1);
    await store.close();
    expect(await eventRows(tool)).toHaveLength(9);
  });

  it("a batch the database refuses stays queued and is written once it can be: nothing is dropped", async () => {
    const store = open({ maxDelayMs: NEVER_MS, batchSize: 10_000, capacity: 4 });
    const tool = uniqueTool("refused_batch");
    const now = Date.now();
    const record = completedRecord(projectId, tool, uniqueRun("poison"), now);
    // A trigger that refuses this tool's events, standing in for a database that fails the write.
    if (provider === "sqlite") {
      await sql(db.url, `CREATE TRIGGER poison_${tool} BEFORE INSERT ON events WHEN NEW.tool = '${tool}' BEGIN SELECT RAISE(ABORT, 'poisoned'); END`);
    } else {
      await sql(db.url, `CREATE FUNCTION poison_${tool}() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN IF NEW.tool = '${tool}' THEN RAISE EXCEPTION 'poisoned'; END IF; RETURN NEW; END $$`);
      await sql(db.url, `CREATE TRIGGER poison_${tool} BEFORE INSERT ON events FOR EACH ROW EXECUTE FUNCTION poison_${tool}()`);
    }
    for (let i = 0; i < 4; i++) await store.appendDecision(decisionEvent(record, "refused", now));
    // The fifth must flush the four first; the write fails, and so does this decision (a 503 upstream).
    await expect(store.appendDecision(decisionEvent(record, "refused", now))).rejects.toThrow(/poisoned/);
    await expect(store.settleLedger()).rejects.toThrow(/poisoned/);
    expect(store.ledgerState.pending).toBe(4);

    if (provider === "sqlite") await sql(db.url, `DROP TRIGGER poison_${tool}`);
    else await sql(db.url, `DROP TRIGGER poison_${tool} ON events`);
    await store.settleLedger();
    expect(await eventRows(tool)).toHaveLength(4);
    expect(store.ledgerState.pending).toBe(0);
  });
});
