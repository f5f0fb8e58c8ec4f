import { Agent, type FunctionTool, type Model, type ModelRequest, type ModelResponse, RunState, Usage, run, setTracingDisabled, tool } from "@openai/agents";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { type Gate, HttpTransport, createGate, currentToolCall } from "../../lib/sdk";
import type { BeginRequest } from "../../lib/sdk/types";
import { gatedTool, settleApprovals } from "../../lib/sdk/adapters/openai-agents";
import { uniqueRun } from "../helpers/policy-fixtures";
import { AdapterWorld, Backend, waitFor } from "../helpers/adapter-world";

/**
 * The OpenAI Agents SDK (@openai/agents) driving gated tools against a real gate server: a scripted
 * model (no network) re-plans, calls in parallel, pauses for approval, and is resumed from serialized
 * RunState JSON. Each scenario runs beside the same agent without the gate, which shows the duplicate.
 */
setTracingDisabled(true);

type Call = { id: string; name: string; args: object };

/** A model that answers from the run's history: the calls for the number of tool results so far, then "done". */
class ScriptedModel implements Model {
  readonly requests: ModelRequest[] = [];
  /** Turns in order, or the calls to make once the history holds that many tool results. */
  constructor(private readonly turns: Call[][] | Record<number, Call[]>) {}

  async getResponse(request: ModelRequest): Promise<ModelResponse> {
    this.requests.push(request);
    const results = Array.isArray(request.input) ? request.input.filter((item) => item.type === "function_call_result").length : 0;
    const turns = this.turns;
    const calls = Array.isArray(turns) ? turns.find((_, turn) => turns.slice(0, turn).flat().length === results) : turns[results];
    if (!calls) return { usage: new Usage(), output: [{ type: "message", role: "assistant", status: "completed", content: [{ type: "output_text", text: "done" }] }] };
    return {
      usage: new Usage(),
      output: calls.map((c) => ({ type: "function_call" as const, callId: c.id, name: c.name, arguments: JSON.stringify(c.args), status: "completed" as const })),
    };
  }

  // eslint-disable-next-line require-yield -- the scripted model never streams
  async *getStreamedResponse(): AsyncIterable<never> {
    throw new Error("the scripted model does not stream");
  }
}

/** What the model was shown for each tool call, by call id. */
function outputs(result: { newItems: ReadonlyArray<{ type: string; rawItem: unknown }> }): Record<string, string> {
  const shown: Record<string, string> = {};
  for (const item of result.newItems) {
    if (item.type !== "tool_call_output_item") continue;
    const raw = item.rawItem as { callId: string; output: string | { type: string; text?: string } };
    shown[raw.callId] = typeof raw.output === "string" ? raw.output : (raw.output.text ?? JSON.stringify(raw.output));
  }
  return shown;
}

const chargeParams = z.object({ orderId: z.string(), amount: z.number(), memo: z.string().nullable() });
const repoParams = z.object({ repo: z.string() });

let world: AdapterWorld;
beforeAll(async () => {
  world = await AdapterWorld.start();
  await world.admin.put("delete_repo", { preview: "approve" }, "test: a human approves each deletion");
});
afterAll(async () => world?.stop());

describe("OpenAI Agents SDK adapter: gatedTool()", () => {
  /** charge_card, gated (scope: orderId) or plain; the first execution is slow. */
  function chargeTool(gate: Gate | null, backend: Backend, slowFirstMs: number, keys: string[] = []) {
    let calls = 0;
    const options = {
      name: "charge_card",
      description: "Charges the order's card",
      parameters: chargeParams,
      timeoutMs: slowFirstMs > 0 ? 2_000 : undefined,
      execute: async ({ orderId, amount }: z.infer<typeof chargeParams>) => {
        if (gate) keys.push(currentToolCall()!.idempotencyKey);
        return backend.act(orderId, calls++ === 0 ? slowFirstMs : 0, () => ({ chargeId: `ch_${orderId}`, amount }));
      },
    };
    return gate ? gatedTool(gate, options, { scope: "orderId" }) : tool(options);
  }

  it("timeout → re-plan with a new call id and paraphrased args: one charge (without the gate: two)", async () => {
    const turns: Call[][] = [
      [{ id: "call_1", name: "charge_card", args: { orderId: "o-1", amount: 42, memo: null } }],
      [{ id: "call_2", name: "charge_card", args: { orderId: "o-1", amount: 42, memo: "retrying after the timeout" } }],
    ];
    for (const gated of [true, false]) {
      const backend = new Backend();
      const gate = world.gate();
      const agent = new Agent({ name: "shop", model: new ScriptedModel(turns), tools: [chargeTool(gated ? gate : null, backend, 2_500)] });
      const result = await gate.run({ runId: uniqueRun("oa-timeout") }, () => run(agent, "charge order o-1 42 EUR"));
      const shown = outputs(result);
      expect(shown.call_1).toContain("timed out");
      // The re-plan got the charge's result either way: gated, by waiting out the first attempt's lease.
      expect(JSON.parse(shown.call_2!)).toEqual({ chargeId: "ch_o-1", amount: 42 });
      await waitFor("the timed-out charge to finish in the background", () => backend.inFlight === 0);
      expect(backend.count()).toBe(gated ? 1 : 2);
    }
  });

  it("parallel identical calls in one model turn: one charge, both calls see it (without the gate: two)", async () => {
    const args = { orderId: "o-2", amount: 10, memo: null };
    const turns: Call[][] = [[{ id: "call_a", name: "charge_card", args }, { id: "call_b", name: "charge_card", args }]];
    for (const gated of [true, false]) {
      const backend = new Backend();
      const gate = world.gate();
      const keys: string[] = [];
      const agent = new Agent({ name: "shop", model: new ScriptedModel(turns), tools: [chargeTool(gated ? gate : null, backend, 0, keys)] });
      const result = await gate.run({ runId: uniqueRun("oa-parallel") }, () => run(agent, "charge o-2"));
      const shown = outputs(result);
      expect(JSON.parse(shown.call_a!)).toEqual({ chargeId: "ch_o-2", amount: 10 });
      expect(shown.call_b).toEqual(shown.call_a);
      expect(backend.count()).toBe(gated ? 1 : 2);
      if (gated) expect(keys).toHaveLength(1);
    }
  });

  it("crash after the effect, resumed from the RunState JSON saved at the last pause: one refund (without the gate: two)", async () => {
    const turns: Call[][] = [[{ id: "call_r", name: "refund_order", args: { orderId: "o-3" } }]];
    for (const gated of [true, false]) {
      const backend = new Backend();
      const runId = uniqueRun("oa-crash");
      // The app's own approval step (the SDK's needsApproval) is where it saves the run's state.
      const refund = (gate: Gate | null, crash?: AbortController) => {
        const options = {
          name: "refund_order",
          description: "Refunds an order",
          parameters: z.object({ orderId: z.string() }),
          needsApproval: true,
          execute: async ({ orderId }: { orderId: string }) => {
            backend.effects.push(orderId);
            crash?.abort(new Error("the agent process died"));
            return { refunded: orderId };
          },
        };
        return gate ? gatedTool(gate, options, { scope: "orderId" }) : tool(options);
      };
      const agentWith = (gate: Gate | null, crash?: AbortController) =>
        new Agent({ name: "support", model: new ScriptedModel(turns), tools: [refund(gate, crash)] });

      const gateA = world.gate();
      const paused = await gateA.run({ runId }, () => run(agentWith(gated ? gateA : null), "refund o-3"));
      expect(paused.interruptions).toHaveLength(1);
      const saved = paused.state.toString();

      // Process A: approved, resumed; the refund happens, then the process dies before saving anything.
      const crash = new AbortController();
      const agentA = agentWith(gated ? gateA : null, crash);
      const stateA = await RunState.fromString(agentA, saved);
      stateA.approve(stateA.getInterruptions()[0]!);
      await gateA.run({ runId }, () => run(agentA, stateA, { signal: crash.signal })).catch(() => undefined);
      expect(backend.count()).toBe(1);

      // Process B: a new gate client, the same saved RunState, approved again and resumed.
      const gateB = world.gate();
      const agentB = agentWith(gated ? gateB : null);
      const stateB = await RunState.fromString(agentB, saved);
      stateB.approve(stateB.getInterruptions()[0]!);
      const resumed = await gateB.run({ runId }, () => run(agentB, stateB));
      expect(resumed.finalOutput).toBe("done");
      expect(JSON.parse(outputs(resumed).call_r!)).toEqual({ refunded: "o-3" });
      expect(backend.count()).toBe(gated ? 1 : 2);
    }
  });

  it("handoff: the billing agent the run was handed to re-plans the charge the first agent made: one charge (without the gate: two)", async () => {
    for (const gated of [true, false]) {
      const backend = new Backend();
      const gate = world.gate();
      const charge = chargeTool(gated ? gate : null, backend, 0);
      const billing = new Agent({
        name: "billing",
        model: new ScriptedModel({ 2: [{ id: "call_b", name: "charge_card", args: { orderId: "o-5", amount: 99, memo: "billing takes over" } }] }),
        tools: [charge],
      });
      const triage = new Agent({
        name: "triage",
        model: new ScriptedModel({
          0: [{ id: "call_t", name: "charge_card", args: { orderId: "o-5", amount: 99, memo: null } }],
          1: [{ id: "call_h", name: "transfer_to_billing", args: {} }],
        }),
        tools: [charge],
        handoffs: [billing],
      });
      const result = await gate.run({ runId: uniqueRun("oa-handoff") }, () => run(triage, "charge o-5"));
      expect(result.lastAgent?.name).toBe("billing");
      const shown = outputs(result);
      expect(JSON.parse(shown.call_b!)).toEqual(JSON.parse(shown.call_t!));
      expect(backend.count()).toBe(gated ? 1 : 2);
    }
  });

  /** delete_repo under policy `preview: approve`, gated with Idemgate approval, or plain with needsApproval. */
  function deleteRepo(gate: Gate | null, backend: Backend): FunctionTool<unknown, typeof repoParams, unknown> {
    const options = {
      name: "delete_repo",
      description: "Deletes a repository",
      parameters: repoParams,
      execute: async ({ repo }: { repo: string }) => {
        backend.effects.push(repo);
        return { deleted: repo };
      },
    };
    if (!gate) return tool({ ...options, needsApproval: true }) as FunctionTool<unknown, typeof repoParams, unknown>;
    return gatedTool(gate, options, { scope: "repo", approval: ({ repo }) => ({ summary: `deletes ${repo} and its issues`, affected: [repo] }) });
  }
  const deleteTurns: Call[][] = [[{ id: "call_d", name: "delete_repo", args: { repo: "acme/legacy" } }]];

  it("approval: the run pauses with the call in Idemgate's inbox; approved there, the resumed run deletes once, and stale RunState JSON replayed executes nothing (without the gate: twice)", async () => {
    for (const gated of [true, false]) {
      const backend = new Backend();
      const runId = uniqueRun("oa-approve");
      const gateA = world.gate();
      const agentA = new Agent({ name: "ops", model: new ScriptedModel(deleteTurns), tools: [deleteRepo(gated ? gateA : null, backend)] });
      const paused = await gateA.run({ runId }, () => run(agentA, "delete acme/legacy"));
      expect(paused.interruptions.map((i) => i.name)).toEqual(["delete_repo"]);
      const saved = paused.state.toString();
      expect(backend.count()).toBe(0);

      if (gated) {
        const pending = await world.pendingPreview(runId);
        expect(pending).toMatchObject({ tool: "delete_repo", args: { repo: "acme/legacy" }, summary: "deletes acme/legacy and its issues" });
        await world.decide(pending.previewId, true, "archived for a year");
      }

      // Resumed in another process from the serialized state.
      const gateB = world.gate();
      const agentB = new Agent({ name: "ops", model: new ScriptedModel(deleteTurns), tools: [deleteRepo(gated ? gateB : null, backend)] });
      const stateB = await RunState.fromString(agentB, saved);
      if (gated) {
        const settled = await gateB.run({ runId }, () => settleApprovals(gateB, stateB));
        expect(settled.map((s) => s.state)).toEqual(["approved"]);
      } else {
        stateB.approve(stateB.getInterruptions()[0]!);
      }
      const resumed = await gateB.run({ runId }, () => run(agentB, stateB));
      expect(JSON.parse(outputs(resumed).call_d!)).toEqual({ deleted: "acme/legacy" });
      expect(backend.count()).toBe(1);

      // The stale state (paused before the deletion) replayed with its approval: nothing runs again.
      const gateC = world.gate();
      const agentC = new Agent({ name: "ops", model: new ScriptedModel(deleteTurns), tools: [deleteRepo(gated ? gateC : null, backend)] });
      const stale = await RunState.fromString(agentC, saved);
      if (gated) {
        const settled = await gateC.run({ runId }, () => settleApprovals(gateC, stale));
        expect(settled.map((s) => s.state)).toEqual(["used"]);
      } else {
        stale.approve(stale.getInterruptions()[0]!);
      }
      const replayed = await gateC.run({ runId }, () => run(agentC, stale));
      expect(JSON.parse(outputs(replayed).call_d!)).toEqual({ deleted: "acme/legacy" });
      expect(backend.count()).toBe(gated ? 1 : 2);
      if (gated) expect(await world.previewsOf(runId)).toHaveLength(1);
    }
  });

  it("approval clicked twice: the second click is refused, and two processes resuming the approved state at once delete once (without the gate: twice)", async () => {
    for (const gated of [true, false]) {
      const backend = new Backend();
      const runId = uniqueRun("oa-twice");
      const gate = world.gate();
      const agent = new Agent({ name: "ops", model: new ScriptedModel(deleteTurns), tools: [deleteRepo(gated ? gate : null, backend)] });
      const saved = (await gate.run({ runId }, () => run(agent, "delete acme/legacy"))).state.toString();
      if (gated) {
        const pending = await world.pendingPreview(runId);
        await world.decide(pending.previewId, true, "ok");
        const again = await world.operator.expectError("POST", world.operator.p(world.projectId, `/previews/${pending.previewId}/approve`), { note: "ok again" });
        expect(again.status).toBe(409);
      }
      const resume = async () => {
        const client = world.gate();
        const agentN = new Agent({ name: "ops", model: new ScriptedModel(deleteTurns), tools: [deleteRepo(gated ? client : null, backend)] });
        const state = await RunState.fromString(agentN, saved);
        if (gated) await client.run({ runId }, () => settleApprovals(client, state));
        else state.approve(state.getInterruptions()[0]!);
        return outputs(await client.run({ runId }, () => run(agentN, state))).call_d;
      };
      const [a, b] = await Promise.all([resume(), resume()]);
      expect(JSON.parse(a!)).toEqual({ deleted: "acme/legacy" });
      expect(b).toEqual(a);
      expect(backend.count()).toBe(gated ? 1 : 2);
    }
  });

  it("approval denied in Idemgate: the model sees the refusal, and an approval given only in the app executes nothing", async () => {
    const backend = new Backend();
    const runId = uniqueRun("oa-deny");
    const gate = world.gate();
    const agent = new Agent({ name: "ops", model: new ScriptedModel(deleteTurns), tools: [deleteRepo(gate, backend)] });
    const paused = await gate.run({ runId }, () => run(agent, "delete acme/legacy"));
    const saved = paused.state.toString();

    // While Idemgate has not decided, the app approving on its own runs nothing: the model is told it waits.
    const early = await RunState.fromString(agent, saved);
    expect(await gate.run({ runId }, () => settleApprovals(gate, early))).toMatchObject([{ state: "pending" }]);
    early.approve(early.getInterruptions()[0]!);
    const waiting = await gate.run({ runId }, () => run(agent, early));
    expect(outputs(waiting).call_d).toContain("waits for a human to approve");
    expect(backend.count()).toBe(0);

    const pending = await world.pendingPreview(runId);
    await world.decide(pending.previewId, false, "that repo still has users");
    const denied = await RunState.fromString(agent, saved);
    expect(await gate.run({ runId }, () => settleApprovals(gate, denied))).toMatchObject([{ state: "denied" }]);
    const refused = await gate.run({ runId }, () => run(agent, denied));
    expect(outputs(refused).call_d).toContain("A human denied this action in Idemgate: that repo still has users");

    // The app approving a call Idemgate denied: execute asks the gate, which refuses; still nothing ran.
    const overruled = await RunState.fromString(agent, saved);
    overruled.approve(overruled.getInterruptions()[0]!);
    const stillRefused = await gate.run({ runId }, () => run(agent, overruled));
    expect(outputs(stillRefused).call_d).toContain("A human denied this action after seeing its preview: that repo still has users");
    expect(backend.count()).toBe(0);
    expect(await world.previewsOf(runId)).toHaveLength(1);
  });
});

describe("two holders of one approved preview", () => {
  /** Another process reads the approved preview (which hands it a fresh token, replacing ours) just before our begin. */
  class RacedTransport extends HttpTransport {
    previewId = "";
    raced = false;
    override async begin(request: BeginRequest, signal?: AbortSignal) {
      if (request.previewToken !== undefined && !this.raced) {
        this.raced = true;
        await this.readPreview(this.previewId);
      }
      return super.begin(request, signal);
    }
  }

  it("a token replaced by the other holder's read is not an error: the call asks again and runs once", async () => {
    const transport = new RacedTransport({ baseUrl: world.server.baseUrl, apiKey: world.apiKey });
    const gate = createGate({ transport });
    const spec = { tool: "delete_repo", runId: uniqueRun("raced"), step: "delete", args: { repo: "acme/raced" } };
    const posted = await transport.createPreview({ tool: spec.tool, runId: spec.runId, stepId: spec.step, args: spec.args, preview: { summary: "deletes acme/raced", affected: ["acme/raced"] } });
    transport.previewId = posted.previewId;
    await world.decide(posted.previewId, true, "ok");
    let deletions = 0;
    const result = await gate.call(spec, () => ({ deleted: ++deletions }), { previewId: posted.previewId, previewTimeoutMs: 0 });
    expect(transport.raced).toBe(true);
    expect(result).toMatchObject({ ok: true, status: "executed", value: { deleted: 1 } });
    expect(deletions).toBe(1);
  });
});
