import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_POLICY } from "../../lib/core/policy";
import { WRITE_BEHIND_DEFAULTS } from "../../lib/store/hot/shared/ledger-write-behind";
import { AdminClient, TEST_ADMIN_TOKEN } from "../helpers/admin-client";
import { TestClient } from "../helpers/client";
import { PROVIDERS, type TestDatabase, createTestDatabase } from "../helpers/databases";
import { createTestProject } from "../helpers/fixtures";
import { uniqueRun, uniqueTool } from "../helpers/policy-fixtures";
import { type TestServer, startServer } from "../helpers/server";
import { sql } from "../helpers/sql";

/** Concurrent agents. */
const WORKERS = 8;
/** Replays of each finished call (the loop detector only warns on this tool). */
const REPLAYS_PER_CALL = 4;
/** Finished calls (execute, complete, replays) before the server dies. */
const CALLS_BEFORE_KILL = 60;
/**
 * A replay answered this long before the kill is on the ledger: 400 times the write-behind's
 * bound (5 ms plus a commit), so a loaded machine cannot make it flaky; what it proves is that only
 * the last moments' replay events can be lost, never older ones.
 */
const SETTLED_MS = 2_000;

interface Answers {
  executes: { callId: string; attempt: number }[];
  completes: string[];
  /** Per call: when each replay was answered (the client's clock). */
  replays: Map<string, number[]>;
}

interface EventRow {
  call_id: string;
  type: string;
  decision: string;
  attempt: number;
}

/**
 * The write-behind ledger under a hard crash: a real server (scripts/serve.mjs) is SIGKILLed while
 * agents execute, complete and replay. Every execute and complete it answered is on the ledger (they
 * never go through the write-behind path); of the replays it answered, at most the last few
 * milliseconds' events are missing (at most the queue's capacity), and their counters are not.
 * A graceful stop (SIGTERM) writes every queued event before the process exits.
 */
describe.each(PROVIDERS)("%s: what a crash can lose from the write-behind ledger", (provider) => {
  let db: TestDatabase;
  let projectId: string;
  let apiKey: string;
  const servers: TestServer[] = [];

  beforeAll(async () => {
    db = await createTestDatabase(provider);
    ({ projectId, apiKey } = await createTestProject(db.url));
  });

  afterAll(async () => {
    await Promise.all(servers.map((server) => server.stop()));
    await db?.drop();
  });

  /**
   * A retryable 503 (the store busy past its timeouts on a loaded machine) means nothing was
   * written: the contract is to send the same request again, as the SDK does.
   */
  async function retryingUnavailable<T>(send: () => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await send();
      } catch (error) {
        if (attempt >= 20 || !(error instanceof Error) || !/^HTTP 503: .*"retryable":true/.test(error.message)) throw error;
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
    }
  }

  /** Agents that run call after call on `server` until `stop()` or the server is gone; every answer they got is kept. */
  async function load(server: TestServer, tool: string) {
    const client = new TestClient(server.baseUrl, apiKey);
    const answers: Answers = { executes: [], completes: [], replays: new Map() };
    let finished = 0;
    let stopped = false;
    /** Set just before the server is killed or stopped: from then on a failed request ends its agent quietly. */
    let ending = false;
    const worker = async (w: number) => {
      for (let n = 0; !stopped; n++) {
        const request = { tool, runId: uniqueRun(`w${w}_${n}`), stepId: "charge", args: { amount: n } };
        try {
          const first = await retryingUnavailable(() => client.begin(request));
          if (first.decision !== "execute") throw new Error(`expected execute, got ${JSON.stringify(first)}`);
          answers.executes.push({ callId: first.callId, attempt: first.attempt });
          await retryingUnavailable(() => client.complete(first.callId, { leaseToken: first.leaseToken, outcome: "succeeded", result: { n } }));
          answers.completes.push(first.callId);
          for (let r = 0; r < REPLAYS_PER_CALL && !stopped; r++) {
            const replay = await retryingUnavailable(() => client.begin(request));
            if (replay.decision !== "replay") throw new Error(`expected replay, got ${JSON.stringify(replay)}`);
            answers.replays.set(first.callId, [...(answers.replays.get(first.callId) ?? []), Date.now()]);
          }
          finished++;
        } catch (error) {
          // The server died (or was stopped) under this agent: everything it was told is recorded above.
          if (ending || stopped) return;
          throw error;
        }
      }
    };
    const running = Promise.all(Array.from({ length: WORKERS }, (_, w) => worker(w)));
    let failure: unknown;
    running.catch((error: unknown) => (failure = error));
    return {
      answers,
      finished: () => finished,
      failure: () => failure,
      /** The server is about to go: agents keep sending, and stop at their first failed request. */
      ending: () => {
        ending = true;
      },
      stop: async () => {
        stopped = true;
        await running;
      },
    };
  }

  async function waitUntil(done: () => boolean, failure: () => unknown): Promise<void> {
    while (!done()) {
      if (failure()) throw failure();
      await new Promise((r) => setTimeout(r, 10));
    }
  }

  async function ledgerOf(tool: string): Promise<EventRow[]> {
    return sql<EventRow>(db.url, "SELECT call_id, type, decision, attempt FROM events WHERE project_id = $1 AND tool = $2", [projectId, tool]);
  }

  async function replayCounters(tool: string): Promise<Map<string, number>> {
    const rows = await sql<{ id: string; replays: number }>(db.url, "SELECT id, replays FROM call_records WHERE project_id = $1 AND tool = $2", [projectId, tool]);
    return new Map(rows.map((row) => [row.id, Number(row.replays)]));
  }

  async function startWithLoopsFlagged(tool: string): Promise<TestServer> {
    const server = await startServer(db.url, { IDEMGATE_ADMIN_TOKEN: TEST_ADMIN_TOKEN });
    servers.push(server);
    await new AdminClient(server.baseUrl, projectId).put(tool, { loop: { ...DEFAULT_POLICY.loop, action: "warn" } }, "test: replays of one call are not a loop here");
    return server;
  }

  it("kill -9 under load: every answered execute and complete is on the ledger; at most the last few replay events are missing", async () => {
    const tool = uniqueTool("crash");
    const server = await startWithLoopsFlagged(tool);
    const agents = await load(server, tool);
    await waitUntil(() => agents.finished() >= CALLS_BEFORE_KILL, agents.failure);
    agents.ending();
    const killedAt = Date.now();
    await server.kill();
    expect(server.process.signalCode).toBe("SIGKILL");
    await agents.stop();
    if (agents.failure()) throw agents.failure();

    const { answers } = agents;
    const events = await ledgerOf(tool);
    const has = (callId: string, type: string, decision: string, attempt: number) =>
      events.some((e) => e.call_id === callId && e.type === type && e.decision === decision && Number(e.attempt) === attempt);

    // 1. Claims and completions are committed before they are answered: all there.
    expect(answers.executes.length).toBeGreaterThanOrEqual(CALLS_BEFORE_KILL);
    for (const execute of answers.executes) expect(has(execute.callId, "begin", "execute", execute.attempt), execute.callId).toBe(true);
    for (const callId of answers.completes) expect(has(callId, "complete", "succeeded", 1), callId).toBe(true);

    // 2. Replays: the counters (committed with each answer) hold every answered replay; an event
    //    may be missing only for the last moments before the kill, and never more than the queue holds.
    const counters = await replayCounters(tool);
    let answered = 0;
    let missing = 0;
    for (const [callId, times] of answers.replays) {
      const onLedger = events.filter((e) => e.call_id === callId && e.type === "begin" && e.decision === "replay").length;
      expect(counters.get(callId), callId).toBeGreaterThanOrEqual(times.length);
      expect(onLedger, `${callId}: replays answered well before the kill`).toBeGreaterThanOrEqual(times.filter((t) => t < killedAt - SETTLED_MS).length);
      answered += times.length;
      missing += Math.max(0, times.length - onLedger);
    }
    expect(answered).toBeGreaterThan(CALLS_BEFORE_KILL);
    expect(missing).toBeLessThanOrEqual(WRITE_BEHIND_DEFAULTS.capacity);
    console.log(`[ledger crash ${provider}] ${answers.executes.length} executes, ${answers.completes.length} completes, ${answered} replays answered; replay events missing after kill -9: ${missing}`);

    // 3. The database is whole: a new process serves the calls the dead one finished.
    const restarted = await startServer(db.url);
    servers.push(restarted);
    const client = new TestClient(restarted.baseUrl, apiKey);
    const [firstCall] = answers.completes;
    const status = await client.status(firstCall!);
    expect(status).toMatchObject({ callId: firstCall, status: "succeeded" });
  });

  it("a graceful stop (SIGTERM) writes every queued event before the process exits", async () => {
    const tool = uniqueTool("drain");
    const server = await startWithLoopsFlagged(tool);
    const agents = await load(server, tool);
    await waitUntil(() => agents.finished() >= CALLS_BEFORE_KILL / 2, agents.failure);
    agents.ending();
    await server.stop();
    await agents.stop();
    if (agents.failure()) throw agents.failure();

    const events = await ledgerOf(tool);
    for (const [callId, times] of agents.answers.replays) {
      const onLedger = events.filter((e) => e.call_id === callId && e.type === "begin" && e.decision === "replay").length;
      expect(onLedger, callId).toBeGreaterThanOrEqual(times.length);
    }
  });
});
