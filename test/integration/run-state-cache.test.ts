import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_EFFECTIVE_POLICY, type EffectivePolicy } from "../../lib/core/policy";
import type { BeginDecision } from "../../lib/core/record";
import { GateService } from "../../lib/server/gate/gate-service";
import { LeaseTokens } from "../../lib/server/gate/lease-tokens";
import type { PolicySource } from "../../lib/server/policies/policy-source";
import { createProjectWithKey } from "../../lib/server/operators/projects";
import { openStore } from "../../lib/store/hot/open-gate-store";
import type { GateStore } from "../../lib/store/ports/gate-store";
import { PROVIDERS, SQLITE_WRITER, type TestDatabase, createTestDatabase } from "../helpers/databases";
import { sql } from "../helpers/sql";

/** The default loop detector (3 repeats of a cycle of up to 2 calls: blocked); outcomes kept 60 s. */
const policy: EffectivePolicy = { ...DEFAULT_EFFECTIVE_POLICY, policy: { ...DEFAULT_EFFECTIVE_POLICY.policy, ttlSeconds: 60 } };
const policies: PolicySource = { forTool: async () => policy };
const secret = "run-state-cache-test-secret";

const call = (runId: string, to: string) => ({ tool: "send_email", runId, stepId: null, scope: null, toolCallId: null, agentId: null, args: { to } });

function expectKind<K extends BeginDecision["decision"]>(decision: BeginDecision, kind: K): Extract<BeginDecision, { decision: K }> {
  expect(decision.decision, JSON.stringify(decision)).toBe(kind);
  return decision as Extract<BeginDecision, { decision: K }>;
}

/**
 * The run's loop history and abort as a SQLite connection keeps them between begins
 * (lib/store/hot/sqlite/run-state-cache.ts), with two gates on one database, each on its own
 * connection, as two server processes are: a run aborted, or a loop line written, through the other
 * connection after this gate read (and kept) the run's state is seen by this gate's next begin.
 * Each case is built so that a stale run state would answer differently. Postgres keeps no run
 * state (its begin reads it in the same statement as the record); the same answers are checked there.
 */
describe.each(PROVIDERS)("%s: a run's state kept between begins", (provider) => {
  let db: TestDatabase;
  let here: GateStore;
  let there: GateStore;
  let a: GateService;
  let b: GateService;
  let projectId: string;

  beforeAll(async () => {
    db = await createTestDatabase(provider);
    here = openStore({ databaseUrl: db.url, sqliteWriter: SQLITE_WRITER });
    there = openStore({ databaseUrl: db.url, sqliteWriter: SQLITE_WRITER });
    projectId = (await createProjectWithKey(here, "run state cache"))!.projectId;
    a = new GateService(here, policies, { leaseTokens: new LeaseTokens(secret) });
    b = new GateService(there, policies, { leaseTokens: new LeaseTokens(secret) });
  });

  afterAll(async () => {
    await here?.close();
    await there?.close();
    await db?.drop();
  });

  async function executed(gate: GateService, runId: string, to: string) {
    const begun = expectKind(await gate.begin(projectId, call(runId, to)), "execute");
    await gate.complete(projectId, begun.callId, begun.leaseToken, { outcome: "succeeded", result: { to } });
    return begun;
  }

  it("a run aborted on another connection after a replay here: the next replay of the completed call is refused, as is a new step", async () => {
    const first = await executed(a, "run_abort", "x@example.com");
    expectKind(await a.begin(projectId, call("run_abort", "x@example.com")), "replay");
    await sql(db.url, "INSERT INTO run_aborts (project_id, run_id, reason, aborted_by, aborted_at) VALUES ($1, $2, $3, $4, $5)", [
      projectId,
      "run_abort",
      "the user cancelled",
      "agent",
      Date.now(),
    ]);
    expect(await a.begin(projectId, call("run_abort", "x@example.com"))).toMatchObject({ decision: "refused", reason: "run_aborted", key: first.key });
    expect(await a.begin(projectId, call("run_abort", "y@example.com"))).toMatchObject({ decision: "refused", reason: "run_aborted" });
    // Another run of the project is not aborted.
    await executed(a, "run_not_aborted", "x@example.com");
  });

  it("a loop line written through the other gate completes a cycle here: the next begin is blocked", async () => {
    await executed(a, "run_loop_there", "x@example.com");
    // B's replay is the run's second X: A kept [X] only, and a third X from that would still pass.
    expectKind(await b.begin(projectId, call("run_loop_there", "x@example.com")), "replay");
    expect(await a.begin(projectId, call("run_loop_there", "x@example.com"))).toMatchObject({ decision: "blocked", reason: "loop_detected", repeats: 3 });
  });

  it("a loop line written through the other gate breaks a cycle here: the next begin replays", async () => {
    await executed(a, "run_loop_broken", "x@example.com");
    expectKind(await a.begin(projectId, call("run_loop_broken", "x@example.com")), "replay");
    // A kept [X, X]: a third X would be blocked, unless it sees B's Y in between.
    await executed(b, "run_loop_broken", "y@example.com");
    expectKind(await a.begin(projectId, call("run_loop_broken", "x@example.com")), "replay");
  });

  it("this gate's own lines count at once: the third X in a row is blocked, on either gate", async () => {
    await executed(a, "run_loop_here", "x@example.com");
    expectKind(await a.begin(projectId, call("run_loop_here", "x@example.com")), "replay");
    expect(await a.begin(projectId, call("run_loop_here", "x@example.com"))).toMatchObject({ decision: "blocked", reason: "loop_detected" });
    expect(await b.begin(projectId, call("run_loop_here", "x@example.com"))).toMatchObject({ decision: "blocked", reason: "loop_detected" });
  });

  it("a record evicted on another connection after a replay here: the next begin executes again", async () => {
    const first = await executed(a, "run_evicted", "x@example.com");
    expectKind(await a.begin(projectId, call("run_evicted", "x@example.com")), "replay");
    await sql(db.url, "UPDATE call_records SET state = 'released', result = NULL, version = version + 1 WHERE id = $1", [first.callId]);
    expect(await a.begin(projectId, call("run_evicted", "x@example.com"))).toMatchObject({ decision: "execute", callId: first.callId, attempt: 2 });
  });
});
