import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { OperatorQueueSchema } from "../../lib/contract/operator-queue";
import { type RunCompensation, RunCompensationSchema } from "../../lib/contract/sagas";
import { BeginResponseSchema } from "../../lib/contract/v1";
import { createGate } from "../../lib/sdk";
import { TestClient } from "../helpers/client";
import { PROVIDERS } from "../helpers/databases";
import { createTestProject } from "../helpers/fixtures";
import { OperatorClient, ROOT, createOperator } from "../helpers/operator-client";
import { uniqueRun } from "../helpers/policy-fixtures";
import { sharedServer } from "../helpers/shared-server";
import type { SharedServerInfo } from "../helpers/shared-servers-setup";

/**
 * #37 §1, model-based: whatever runners and operators do to an aborted run's plan (abort, undos that
 * succeed, fail permanently or retryably, are abandoned mid-flight, replayed to a second runner,
 * raced by two runners; operators' retries and resolutions, allowed or not), after every step the
 * plan matches the model and is either finished or has an enabled action, shown in the operators'
 * queue — the queue never shows a run nothing can move.
 */
type Status = RunCompensation["steps"][number]["status"];

interface Model {
  aborted: boolean;
  /** In plan order (newest completion first). */
  steps: Status[];
}

interface Real {
  runId: string;
  callIds: string[];
}

const done = (s: Status) => s === "compensated" || s === "resolved";
const nextOpen = (m: Model) => m.steps.findIndex((s) => !done(s));

function expectedState(m: Model): RunCompensation["state"] {
  if (!m.aborted) return "running";
  const open = nextOpen(m);
  if (open < 0) return "compensated";
  return m.steps[open] === "failed" ? "compensation_failed" : "compensating";
}

describe.each(PROVIDERS)("%s: sagas — every reachable plan is finished or has an enabled action (model-based)", (provider) => {
  // The run's shared server: nothing here restarts it or looks beyond its own project.
  let server: SharedServerInfo;
  let projectId: string;
  let apiKey: string;
  let agent: TestClient;
  let operator: OperatorClient;

  beforeAll(async () => {
    server = await sharedServer(provider);
    ({ projectId, apiKey } = await createTestProject(server.databaseUrl));
    agent = new TestClient(server.baseUrl, apiKey);
    const root = await OperatorClient.signIn(server.baseUrl, ROOT.email, ROOT.password);
    operator = await createOperator(root, projectId, "operator");
  });

  const runPath = (r: Real) => operator.p(projectId, `/runs/${r.runId}`);
  const plan = async (r: Real) => RunCompensationSchema.parse(await (await agent.raw("GET", `/api/v1/runs/${r.runId}/compensation`)).json());
  const begin = async (r: Real, i: number) => {
    const res = await agent.raw("POST", `/api/v1/runs/${r.runId}/compensations/${r.callIds[i]}/begin`, {});
    expect(res.status, `begin of step ${i}`).toBe(200);
    return BeginResponseSchema.parse(await res.json());
  };
  const executed = (d: Awaited<ReturnType<typeof begin>>) => {
    expect(d.decision).toBe("execute");
    return d as Extract<typeof d, { decision: "execute" }>;
  };

  /** After every command: the plan is the model's, and finished or movable, and the queue agrees. */
  async function checkInvariant(m: Model, r: Real) {
    const seen = await plan(r);
    expect(seen.steps.map((s) => s.status)).toEqual(m.steps);
    expect(seen.state).toBe(expectedState(m));
    const queue = await operator.call(OperatorQueueSchema, "GET", operator.p(projectId, "/queue"));
    const queued = queue.runs.find((run) => run.runId === r.runId);
    if (seen.state === "running") {
      // Not aborted: the agent or an operator can abort it; nothing waits in the queue.
      expect(queued).toBeUndefined();
      return;
    }
    if (seen.state === "compensated") {
      expect(queued).toBeUndefined();
      return;
    }
    // Not finished: the step that holds the plan has an operator's action, and the queue shows it.
    const open = seen.steps.find((s) => !done(s.status))!;
    expect(open.actions.length, `step ${open.callId} (${open.status}) has no action`).toBeGreaterThan(0);
    if (open.status === "failed") expect(open.actions).toContain("retry");
    expect(open.actions).toContain("resolve");
    if (seen.state === "compensating") expect(seen.nextCallId).toBe(open.callId);
    expect(queued, "an unfinished aborted run is in the queue").toBeDefined();
    expect(queued!.steps.some((s) => s.actions.length > 0)).toBe(true);
  }

  type Cmd = fc.AsyncCommand<Model, Real>;

  class Abort implements Cmd {
    check = (m: Readonly<Model>) => !m.aborted;
    async run(m: Model, r: Real) {
      const res = await agent.raw("POST", `/api/v1/runs/${r.runId}/abort`, { reason: "model: abort" });
      expect(res.status).toBe(200);
      m.aborted = true;
      await checkInvariant(m, r);
    }
    toString = () => "abort";
  }

  /** A runner begins the plan's next step and ends it as `how`. */
  class Runner implements Cmd {
    constructor(private readonly how: "succeeds" | "fails" | "fails_retryably" | "abandons") {}
    check = (m: Readonly<Model>) => m.aborted && nextOpen(m) >= 0 && m.steps[nextOpen(m)] === "pending";
    async run(m: Model, r: Real) {
      const i = nextOpen(m);
      const d = executed(await begin(r, i));
      if (this.how === "succeeds") {
        await agent.complete(d.callId, { leaseToken: d.leaseToken, outcome: "succeeded", result: { undone: true } });
        m.steps[i] = "compensated";
      } else if (this.how === "fails") {
        await agent.complete(d.callId, { leaseToken: d.leaseToken, outcome: "failed", error: { message: "PSP says no", retryable: false } });
        m.steps[i] = "failed";
      } else if (this.how === "fails_retryably") {
        await agent.complete(d.callId, { leaseToken: d.leaseToken, outcome: "failed", error: { message: "PSP busy", retryable: true } });
      } else {
        m.steps[i] = "running";
      }
      await checkInvariant(m, r);
    }
    toString = () => `runner ${this.how}`;
  }

  /** Two runners begin the next step at once: one executes, the other waits; the holder succeeds. */
  class RacingRunners implements Cmd {
    check = (m: Readonly<Model>) => m.aborted && nextOpen(m) >= 0 && m.steps[nextOpen(m)] === "pending";
    async run(m: Model, r: Real) {
      const i = nextOpen(m);
      const both = await Promise.all([begin(r, i), begin(r, i)]);
      const holders = both.filter((d) => d.decision === "execute");
      expect(holders).toHaveLength(1);
      expect(both.map((d) => d.decision).sort()).toEqual(["execute", "in_progress"]);
      const d = executed(holders[0]!);
      await agent.complete(d.callId, { leaseToken: d.leaseToken, outcome: "succeeded", result: { undone: true } });
      m.steps[i] = "compensated";
      await checkInvariant(m, r);
    }
    toString = () => "racing runners";
  }

  /** A second runner begins a failed or finished step: it is replayed the outcome, nothing runs. */
  class Replay implements Cmd {
    constructor(private readonly index: number) {}
    check = (m: Readonly<Model>) => m.aborted && (m.steps[this.index] === "failed" || m.steps[this.index] === "compensated");
    async run(m: Model, r: Real) {
      const d = await begin(r, this.index);
      expect(d).toMatchObject({ decision: "replay", status: m.steps[this.index] === "failed" ? "failed" : "succeeded" });
      await checkInvariant(m, r);
    }
    toString = () => `replay step ${this.index}`;
  }

  /** An operator retries a step: allowed exactly for a failed undo of an aborted run, else 409 and nothing changes. */
  class OperatorRetry implements Cmd {
    constructor(private readonly index: number) {}
    check = () => true;
    async run(m: Model, r: Real) {
      const path = `${runPath(r)}/compensations/${r.callIds[this.index]}/retry`;
      if (m.aborted && m.steps[this.index] === "failed") {
        await operator.call(RunCompensationSchema, "POST", path, { reason: "model: retry" });
        m.steps[this.index] = "pending";
      } else {
        expect((await operator.expectError("POST", path, { reason: "model: retry" })).status).toBe(409);
      }
      await checkInvariant(m, r);
    }
    toString = () => `operator retries step ${this.index}`;
  }

  /** An operator resolves a step by hand: allowed for any step not done of an aborted run, else 409. */
  class OperatorResolve implements Cmd {
    constructor(private readonly index: number) {}
    check = () => true;
    async run(m: Model, r: Real) {
      const path = `${runPath(r)}/compensations/${r.callIds[this.index]}/resolve`;
      if (m.aborted && !done(m.steps[this.index]!)) {
        await operator.call(RunCompensationSchema, "POST", path, { note: "model: resolved" });
        m.steps[this.index] = "resolved";
      } else {
        expect((await operator.expectError("POST", path, { note: "model: resolved" })).status).toBe(409);
      }
      await checkInvariant(m, r);
    }
    toString = () => `operator resolves step ${this.index}`;
  }

  const STEPS = 2;
  const commands = [
    fc.constant(new Abort()),
    fc.constantFrom("succeeds", "fails", "fails_retryably", "abandons").map((how) => new Runner(how as "succeeds")),
    fc.constant(new RacingRunners()),
    fc.integer({ min: 0, max: STEPS - 1 }).map((i) => new Replay(i)),
    fc.integer({ min: 0, max: STEPS - 1 }).map((i) => new OperatorRetry(i)),
    fc.integer({ min: 0, max: STEPS - 1 }).map((i) => new OperatorResolve(i)),
  ];

  async function newRun(): Promise<Real> {
    const runId = uniqueRun("model");
    const gate = createGate({ baseUrl: server.baseUrl, apiKey, toolRetry: false });
    await gate.run({ runId }, async () => {
      await gate.call({ tool: "reserve_inventory", step: "reserve" }, () => ({ reservationId: "r1" }), { compensate: (x) => ({ tool: "release_inventory", args: x }) });
      await gate.call({ tool: "charge_card", step: "charge" }, () => ({ chargeId: "c1" }), { compensate: (x) => ({ tool: "refund_charge", args: x }) });
    });
    const seen = RunCompensationSchema.parse(await (await agent.raw("GET", `/api/v1/runs/${runId}/compensation`)).json());
    return { runId, callIds: seen.steps.map((s) => s.callId) };
  }

  it("abort, complete, fail, replay, retry, resolve and racing runners never leave a plan nothing can move", async () => {
    await fc.assert(
      fc.asyncProperty(fc.commands(commands, { maxCommands: 12 }), async (cmds) => {
        const real = await newRun();
        const model: Model = { aborted: false, steps: Array.from({ length: STEPS }, () => "pending" as Status) };
        await fc.asyncModelRun(() => ({ model, real }), cmds);
        // The way out is always there: resolving every step not done finishes any aborted plan.
        if (!model.aborted) await new Abort().run(model, real);
        for (let i = 0; i < STEPS; i++) if (!done(model.steps[i]!)) await new OperatorResolve(i).run(model, real);
        expect((await plan(real)).state).toBe("compensated");
      }),
      { numRuns: 12, endOnFailure: true },
    );
  }, 600_000);
});
