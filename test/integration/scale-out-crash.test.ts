import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { BeginRequest } from "../../lib/contract/v1";
import { AdminClient, TEST_ADMIN_TOKEN } from "../helpers/admin-client";
import { PROVIDERS, type TestDatabase, createTestDatabase } from "../helpers/databases";
import { createTestProject } from "../helpers/fixtures";
import { type CallTrace, type Execution, FailoverAgent, type Instance } from "../helpers/failover-agent";
import { expectDecision, uniqueRun, uniqueTool } from "../helpers/policy-fixtures";
import { type TestServer, startServer } from "../helpers/server";
import { sql } from "../helpers/sql";
import { DEFAULT_POLICY } from "../../lib/core/policy";

/** Concurrent agents; every fifth logical call is a race of two agents, one through each instance. */
const WORKERS = 16;
/** Logical calls finished before the kill, and again after it. */
const CALLS_PER_PHASE = 150;
/** Calls begun on A and left running (their agents are busy) when A dies. */
const PARKED = 6;
/** Short leases, so the dead instance's calls are taken over within the test. */
const LEASE_SECONDS = 2;
/** Long enough for a retry through B to latch onto a dead lease until it expires. */
const WAIT_MS = 5_000;

interface EventRow {
  call_id: string;
  key: string;
  type: string;
  decision: string;
  attempt: number;
}

interface RecordRow {
  id: string;
  key: string;
  state: string;
  attempt: number;
  result: string | null;
}

/**
 * Scale-out, the crash case: two `next start` instances on one Postgres under sustained traffic,
 * and one of them SIGKILLed mid-load with calls of its own in flight and others still running.
 * The database holds every decision, so nothing the dead instance answered is lost, its leases
 * expire and are taken over through the survivor — once per key — and the survivor never fails.
 */
describe.skipIf(!PROVIDERS.includes("postgres"))("postgres: kill -9 one of two instances under load", () => {
  let db: TestDatabase;
  let projectId: string;
  let agent: FailoverAgent;
  let servers: TestServer[] = [];
  let A: Instance;
  let B: Instance;
  let tool: string;

  beforeAll(async () => {
    db = await createTestDatabase("postgres");
    const project = await createTestProject(db.url);
    projectId = project.projectId;
    servers = await Promise.all([0, 1].map(() => startServer(db.url, { IDEMGATE_ADMIN_TOKEN: TEST_ADMIN_TOKEN })));
    A = { name: "A", baseUrl: servers[0]!.baseUrl };
    B = { name: "B", baseUrl: servers[1]!.baseUrl };
    agent = new FailoverAgent(project.apiKey);
    tool = uniqueTool("charge");
    // Every fifth call is run by two agents at once, and an agent resends a begin that the dying
    // instance committed but never answered: one run can then really show the same call replayed
    // three times, which the loop detector rightly blocks. This test is about failover, so loops
    // are flagged here, not blocked (the detector still runs on every begin).
    await new AdminClient(B.baseUrl, projectId).put(tool, { leaseSeconds: LEASE_SECONDS, leaseGraceSeconds: 0, loop: { ...DEFAULT_POLICY.loop, action: "warn" } }, "test: short leases, no grace, loops flagged");
  });

  afterAll(async () => {
    await Promise.all(servers.map((server) => server.stop()));
    await db?.drop();
  });

  it("loses no record, hands the dead instance's leases over once per key, and the survivor never fails", async () => {
    const traces: CallTrace[] = [];
    let started = 0;
    let finished = 0;
    let stop = false;
    const request = (n: number): BeginRequest => ({ tool, runId: uniqueRun(`load${n}`), stepId: "charge", args: { amount: n }, waitMs: WAIT_MS });
    const toolRun = (n: number) => ({ toolMs: n % 7, result: (attempt: number) => ({ chargeId: `ch_${n}_a${attempt}` }) });

    // Each worker is an agent runtime: even ones reach A first, odd ones B; both fail over to the other.
    const worker = async (w: number) => {
      const route = w % 2 === 0 ? [A, B] : [B, A];
      while (!stop) {
        const n = started++;
        const call = request(n);
        const runs = n % 5 === 0 ? [agent.run([A, B], call, toolRun(n)), agent.run([B, A], call, toolRun(n))] : [agent.run(route, call, toolRun(n))];
        traces.push(...(await Promise.all(runs)));
        finished++;
      }
    };
    let failure: unknown;
    const until = async (done: () => boolean) => {
      while (!done()) {
        if (failure) throw failure;
        await new Promise((r) => setTimeout(r, 10));
      }
    };

    const load = Promise.all(Array.from({ length: WORKERS }, (_, w) => worker(w))).catch((error: unknown) => {
      failure = error;
      stop = true;
    });
    await until(() => finished >= CALLS_PER_PHASE);

    // Agents whose slow tools are still running on A's leases when A dies.
    const parked = await Promise.all(
      Array.from({ length: PARKED }, async (_, i) => {
        const call: BeginRequest = { tool, runId: uniqueRun(`parked${i}`), stepId: "charge", args: { amount: 1_000 + i } };
        return { call, first: expectDecision((await agent.begin([A], call)).decision, "execute") };
      }),
    );
    const killedAt = Date.now();
    await servers[0]!.kill();
    expect(servers[0]!.process.signalCode).toBe("SIGKILL");
    const finishedAtKill = finished;
    await until(() => finished >= finishedAtKill + CALLS_PER_PHASE);
    stop = true;
    await load;
    if (failure) throw failure;

    // The parked calls' agents retry through B, three at once each: their lease runs out, exactly
    // one takes over as attempt 2 and the others latch onto its outcome.
    const recoveries = await Promise.all(
      parked.map(async ({ call, first }) => {
        const retries = await Promise.all(
          [0, 1, 2].map(() => agent.run([B], { ...call, waitMs: WAIT_MS }, { toolMs: 20, result: (attempt) => ({ chargeId: `ch_parked_a${attempt}` }) })),
        );
        const late = await agent.post(B, `/api/v1/calls/${first.callId}/complete`, { leaseToken: first.leaseToken, outcome: "succeeded", result: { late: true } });
        return { first, retries, late };
      }),
    );
    for (const { first, retries, late } of recoveries) {
      const executions = retries.flatMap((trace) => trace.executions);
      expect(executions, JSON.stringify(retries)).toHaveLength(1);
      expect(executions[0]).toMatchObject({ callId: first.callId, key: first.key, attempt: 2, recovered: true, instance: "B" });
      expect(retries.filter((trace) => trace.replayed?.result !== undefined).map((trace) => trace.replayed!.result)).toEqual([
        { chargeId: "ch_parked_a2" },
        { chargeId: "ch_parked_a2" },
      ]);
      // The dead attempt's answer, if its agent ever sends it, cannot overwrite the takeover's.
      expect(late).toMatchObject({ status: 409, json: { error: { code: "lease_lost" } } });
    }

    // A's agents saw it die; B answered everything, before, during and after, without a 5xx.
    const exchanges = agent.exchanges;
    const onA = exchanges.filter((x) => x.instance === "A");
    const onB = exchanges.filter((x) => x.instance === "B");
    expect(onA.filter((x) => x.status === 200).length).toBeGreaterThan(0);
    expect(onA.filter((x) => x.status === "connection_error").length).toBeGreaterThan(0);
    expect(onA.filter((x) => x.status === "connection_error" && x.at < killedAt)).toEqual([]);
    expect(onB.filter((x) => x.status === "connection_error" || x.status >= 500)).toEqual([]);
    expect(onB.filter((x) => x.at >= killedAt).length).toBeGreaterThan(CALLS_PER_PHASE);

    // What the database holds, against what every agent was told.
    const records = new Map(
      (await sql<RecordRow>(db.url, `SELECT id, key, state, attempt, result FROM call_records WHERE project_id = $1 AND tool = $2`, [projectId, tool])).map(
        (row) => [row.key, row],
      ),
    );
    const events = await sql<EventRow>(db.url, `SELECT call_id, key, type, decision, attempt FROM events WHERE project_id = $1 AND tool = $2`, [projectId, tool]);
    const executionsByKey = new Map<string, EventRow[]>();
    for (const event of events) {
      if (event.type !== "begin" || (event.decision !== "execute" && event.decision !== "verify")) continue;
      executionsByKey.set(event.key, [...(executionsByKey.get(event.key) ?? []), event]);
    }
    const hasEvent = (callId: string, type: string, decision: string, attempt: number) =>
      events.some((e) => e.call_id === callId && e.type === type && e.decision === decision && e.attempt === attempt);

    const allTraces = [...traces, ...recoveries.flatMap((r) => r.retries)];
    const tracesByKey = new Map<string, CallTrace[]>();
    for (const trace of allTraces) tracesByKey.set(trace.key!, [...(tracesByKey.get(trace.key!) ?? []), trace]);
    const parkedKeys = new Set(parked.map((p) => p.first.key));
    const seenExecutions: Execution[] = [...allTraces.flatMap((t) => t.executions), ...parked.map((p) => ({ ...p.first, instance: "A" }))];

    // 1. Every execute either instance answered is on the ledger: its record and its begin event.
    for (const execution of seenExecutions) {
      const record = records.get(execution.key);
      expect(record?.id, JSON.stringify(execution)).toBe(execution.callId);
      expect(hasEvent(execution.callId, "begin", "execute", execution.attempt), JSON.stringify(execution)).toBe(true);
    }
    // 2. Every complete either instance acknowledged stayed completed, with its result.
    const completed = allTraces.flatMap((t) => (t.completed ? [t.completed] : []));
    for (const done of completed) {
      const record = records.get(done.status.key)!;
      expect(record).toMatchObject({ id: done.callId, state: "succeeded", attempt: done.attempt });
      expect(JSON.parse(record.result!)).toEqual(done.result);
      expect(hasEvent(done.callId, "complete", "succeeded", done.attempt)).toBe(true);
    }
    // 3. Per key: every call ended succeeded; executions the agents did not hear of are only
    //    begins that A committed and then died before answering; a key whose first execution
    //    completed ran once, and no key ran more than twice (the first attempt plus one takeover).
    let takeovers = 0;
    let lostAnswers = 0;
    for (const [key, keyTraces] of tracesByKey) {
      const record = records.get(key);
      expect(record?.state, key).toBe("succeeded");
      const inDb = executionsByKey.get(key) ?? [];
      const seen = seenExecutions.filter((e) => e.key === key);
      const unseen = inDb.filter((e) => !seen.some((s) => s.callId === e.call_id && s.attempt === e.attempt));
      const beginFailedOverFromA = keyTraces.some((t) => t.beginConnectionErrors > 0);
      expect(unseen.length, key).toBeLessThanOrEqual(beginFailedOverFromA ? 1 : 0);
      lostAnswers += unseen.length;
      const firstCompleted = events.some((e) => e.key === key && e.type === "complete" && e.attempt === 1);
      if (firstCompleted) {
        expect(inDb, key).toHaveLength(1);
        expect(record!.attempt).toBe(1);
        continue;
      }
      expect(inDb, key).toHaveLength(2);
      expect(seen.find((e) => e.attempt === 2), key).toMatchObject({ recovered: true });
      // The first attempt's lease was abandoned with A (parked there, or answered by A, heard or
      // not, and never completed), or its agent — alive but slower than the lease on a loaded
      // machine — was told lease_lost when it completed late.
      const diedWithA = parkedKeys.has(key) || seen.some((e) => e.attempt === 1 && e.instance === "A") || unseen.length === 1;
      const toldLeaseLost = keyTraces.some((t) => t.leaseLost && t.executions.some((e) => e.attempt === 1));
      expect(diedWithA || toldLeaseLost, `${key}: ${JSON.stringify(keyTraces)}`).toBe(true);
      if (diedWithA && !toldLeaseLost) takeovers++;
    }
    expect(takeovers).toBeGreaterThanOrEqual(PARKED);
    console.log(
      `[scale-out crash] ${tracesByKey.size} keys, ${exchanges.length} requests (${onA.length} to A, ${onB.length} to B); ` +
        `${onA.filter((x) => x.status === "connection_error").length} connection errors on A, ${takeovers} of A's leases taken over through B ` +
        `(${PARKED} parked), ${lostAnswers} executes A committed but never answered; ${allTraces.filter((t) => t.beginConnectionErrors > 0).length} begins ` +
        `and ${allTraces.filter((t) => t.completeConnectionErrors > 0).length} completes failed over from A, ${allTraces.filter((t) => t.leaseLost).length} lease_lost completes`,
    );
  });
});
