import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RunBudgetSchema } from "../../lib/contract/budgets";
import { RunCompensationSchema } from "../../lib/contract/sagas";
import { PROVIDERS } from "../helpers/databases";
import { sql } from "../helpers/sql";
import { type TwoProjects, startTwoProjects } from "../helpers/two-projects";

/**
 * Run ids belong to a project (issue #43, §3): a run is known to a project once a call of that
 * project used it. Every route naming a run answers 404 for any other run id — another project's
 * included — and records nothing for it (no abort, no budget row, no audit entry, no event).
 */
describe.each(PROVIDERS)("%s: run ids belong to a project", (provider) => {
  let world: TwoProjects;
  const ownRun = `run_own_${provider}`;
  const theirRun = `run_theirs_${provider}`;
  const neverRun = `run_never_${provider}`;
  let theirCall: string;

  beforeAll(async () => {
    world = await startTwoProjects(provider);
    const begun = await world.agentA.begin({ tool: "charge_card", runId: ownRun, stepId: "charge" });
    if (begun.decision !== "execute") throw new Error(`expected execute, got ${begun.decision}`);
    await world.agentA.complete(begun.callId, { leaseToken: begun.leaseToken, outcome: "succeeded", result: { ok: true } });
    const theirs = await world.agentB.begin({ tool: "charge_card", runId: theirRun, stepId: "charge" });
    if (theirs.decision !== "execute") throw new Error(`expected execute, got ${theirs.decision}`);
    theirCall = theirs.callId;
    await world.agentB.complete(theirs.callId, { leaseToken: theirs.leaseToken, outcome: "succeeded", result: { ok: true } });
  });
  afterAll(async () => {
    await world?.stop();
  });

  /** What a route could have recorded for a run id: counted before and after the refused requests. */
  async function traces(): Promise<Record<string, number>> {
    const count = async (text: string, values: unknown[]) => Number((await sql<{ n: number | string }>(world.databaseUrl, text, values))[0]!.n);
    return {
      aborts: await count("SELECT COUNT(*) AS n FROM run_aborts", []),
      budgets: await count("SELECT COUNT(*) AS n FROM run_budgets WHERE project_id = $1", [world.projectA]),
      audit: await count("SELECT COUNT(*) AS n FROM audit_log", []),
      events: await count("SELECT COUNT(*) AS n FROM events WHERE project_id = $1 AND run_id <> $2", [world.projectA, ownRun]),
    };
  }

  it("the operator API answers 404 for another project's run id and for one never used, and records nothing", async () => {
    const before = await traces();
    for (const runId of [theirRun, neverRun]) {
      const run = (rest: string) => world.root.p(world.projectA, `/runs/${runId}${rest}`);
      const refused = [
        await world.root.expectError("GET", run("/budget")),
        await world.root.expectError("POST", run("/budget"), { maxCallsPerRun: 5, reason: "more room" }),
        await world.root.expectError("GET", run("/compensation")),
        await world.root.expectError("POST", run("/abort"), { reason: "fraud suspected" }),
        await world.root.expectError("POST", run(`/compensations/${theirCall}/retry`), { reason: "try again" }),
        await world.root.expectError("POST", run(`/compensations/${theirCall}/resolve`), { note: "done by hand" }),
        await world.root.expectError("GET", run("")),
      ];
      expect(refused.map((r) => r.status), runId).toEqual([404, 404, 404, 404, 404, 404, 404]);
      expect(refused.every((r) => r.body.error.code === "not_found")).toBe(true);
    }
    expect(await traces()).toEqual(before);
    // The other project's run is untouched: still running, nothing aborted.
    const theirs = await world.agentB.raw("GET", `/api/v1/runs/${theirRun}/compensation`);
    expect(RunCompensationSchema.parse(await theirs.json())).toMatchObject({ state: "running", abort: null });
  });

  it("the agent API answers 404 for another project's run id and for one never used, and records nothing", async () => {
    const before = await traces();
    for (const runId of [theirRun, neverRun]) {
      const refused = [
        await world.agentA.expectError("GET", `/api/v1/runs/${runId}/compensation`),
        await world.agentA.expectError("POST", `/api/v1/runs/${runId}/abort`, { reason: "user cancelled" }),
        await world.agentA.expectError("POST", `/api/v1/runs/${runId}/compensations/${theirCall}/begin`, {}),
      ];
      expect(refused.map((r) => r.status), runId).toEqual([404, 404, 404]);
    }
    expect(await traces()).toEqual(before);
  });

  it("the project's own run answers as before: its budget, its compensation, and an abort that is recorded", async () => {
    const run = (rest: string) => world.root.p(world.projectA, `/runs/${ownRun}${rest}`);
    expect(await world.root.call(RunBudgetSchema, "GET", run("/budget"))).toMatchObject({ runId: ownRun, calls: 0, updatedAt: null });
    expect(await world.agentA.raw("GET", `/api/v1/runs/${ownRun}/compensation`).then((res) => res.status)).toBe(200);
    const aborted = await world.root.call(RunCompensationSchema, "POST", run("/abort"), { reason: "fraud suspected" });
    expect(aborted.abort).toMatchObject({ reason: "fraud suspected" });
    const rows = await sql(world.databaseUrl, "SELECT run_id FROM run_aborts WHERE project_id = $1", [world.projectA]);
    expect(rows).toEqual([{ run_id: ownRun }]);
  });
});
