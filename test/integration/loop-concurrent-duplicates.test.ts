import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { BeginRequest, BeginResponse } from "../../lib/contract/v1";
import type { AdminClient } from "../helpers/admin-client";
import type { TestClient } from "../helpers/client";
import { PROVIDERS } from "../helpers/databases";
import { type OwnServers, ownServerPair } from "../helpers/own-servers";
import { expectDecision, runOnce, uniqueRun, uniqueTool } from "../helpers/policy-fixtures";
import { sql } from "../helpers/sql";

/**
 * Issue #38 §1a: duplicates that arrive at once, through two gate instances. The live loop
 * detector was the side that was wrong: begins of one run sent together each read the run's
 * history before the others' steps were written, so none was blocked where the same begins sent
 * one after the other are, and the policy simulator (which replays in order) predicted blocks the
 * gate never gave. A run's steps are now written one after the other (GateEvent.loopAfter, a unique
 * index per run): N at once are decided as N in a row, and the simulator replaying the ledger under
 * the same policy reproduces every live decision.
 *
 * Own servers and database: the counts are exact, so no other file's write contention may 503 a begin.
 */
describe.each(PROVIDERS)("%s: concurrent duplicates and the loop detector", (provider) => {
  let own: OwnServers | undefined;
  let clients: TestClient[];
  let admin: AdminClient;

  beforeAll(async () => {
    own = await ownServerPair(provider, { IDEMGATE_PG_LOCK_TIMEOUT_MS: "60000", IDEMGATE_PG_STATEMENT_TIMEOUT_MS: "60000" });
    ({ clients, admin } = own);
  });

  afterAll(async () => {
    await own?.stop();
  });

  /** N begins of the request at once, alternating between the two instances; each a new tool-call id (the model deciding again). */
  const burst = (request: BeginRequest, n: number, label: string, over: Partial<BeginRequest> = {}) =>
    Promise.all(Array.from({ length: n }, (_, i) => clients[i % 2]!.begin({ ...request, toolCallId: `tc_${label}_${i}`, ...over })));

  const tally = (answers: BeginResponse[]) => {
    const counts: Record<string, number> = {};
    for (const answer of answers) counts[answer.decision] = (counts[answer.decision] ?? 0) + 1;
    return counts;
  };

  /**
   * The storm of the issue, on one run: a first call, duplicates while it runs (some answered
   * in_progress, some waiting on it), its outcome, then duplicates of the finished call. Returns the
   * test's own tally of what the gate answered.
   */
  async function storm(request: BeginRequest, duringRun: number, waiting: number, afterRun: number, label: string) {
    const first = expectDecision(await clients[0]!.begin({ ...request, toolCallId: `tc_${label}_first` }), "execute");
    const latched = burst(request, waiting, `${label}_wait`, { waitMs: 10_000 });
    const during = await burst(request, duringRun, `${label}_during`);
    await clients[1]!.complete(first.callId, { leaseToken: first.leaseToken, outcome: "succeeded", result: { ticket: label } });
    const after = await burst(request, afterRun, `${label}_after`);
    return { during: tally(during), latched: tally(await latched), after: tally(after) };
  }

  it("12 duplicates of a finished call sent at once through two instances: one replay and 11 blocked, as 12 sent in a row", async () => {
    const request = { tool: uniqueTool("create_ticket"), runId: uniqueRun("burst"), stepId: "create", args: { title: "printer" } };
    await runOnce(clients[0]!, request);
    // In a row: the finished call (step 1), a replay (step 2), and the third of the cycle is blocked, and so is every later one.
    expect(tally(await burst(request, 12, "burst"))).toEqual({ replay: 1, blocked: 11 });
    // What the ledger holds: each step of the run names the step it was decided on, once.
    const steps = await sql<{ loop_after: string | null }>(own!.db.url, "SELECT loop_after FROM events WHERE project_id = $1 AND run_id = $2 AND loop_step = 1 ORDER BY id", [own!.projectId, request.runId]);
    expect(steps).toHaveLength(13);
    expect(new Set(steps.map((s) => s.loop_after)).size).toBe(13);
  });

  it("a storm of concurrent duplicates: the simulator replaying it under the same policy reproduces every live decision", async () => {
    const tool = uniqueTool("create_ticket");
    const request = { tool, runId: uniqueRun("storm"), stepId: "create", args: { title: "storm" } };
    const live = await storm(request, 10, 4, 10, "a");
    // The test's own tally: in_progress and waiting duplicates are no steps; after the outcome, a
    // replay (step 2), and the rest blocked.
    expect(live).toEqual({ during: { in_progress: 10 }, latched: { replay: 4 }, after: { replay: 1, blocked: 9 } });

    for (const draft of [{}, { ttlSeconds: 86_401 }]) {
      const sim = await admin.simulate(tool, draft);
      expect(sim.sampled).toBe(25);
      expect(sim.actual).toMatchObject({ executed: 1, deduped: 10 + 4 + 1, blocked: 9 });
      // Identity without drift: the policy in force, replayed, decides each call as the gate did.
      expect(sim.baseline).toEqual(sim.actual);
      expect(sim.simulated).toEqual(sim.actual);
      expect(sim.drift.replayedDifferently).toBe(0);
    }
  });

  it("a real draft's prediction on a concurrent storm comes true when the same storm is sent after saving it", async () => {
    const tool = uniqueTool("create_ticket");
    const request = { tool, stepId: "create", args: { title: "draft" } };
    await storm({ ...request, runId: uniqueRun("before") }, 8, 3, 8, "b");
    const draft = { loop: { repeats: 4 } };
    const predicted = await admin.simulate(tool, draft);
    expect(predicted.simulated).not.toEqual(predicted.baseline);
    await admin.put(tool, draft);
    const live = await storm({ ...request, runId: uniqueRun("after") }, 8, 3, 8, "c");
    // Under repeats 4: two replays after the outcome, then blocked.
    expect(live.after).toEqual({ replay: 2, blocked: 6 });
    expect(predicted.simulated).toMatchObject({ executed: 1, deduped: 8 + 3 + 2, blocked: 6 });
  });
});
