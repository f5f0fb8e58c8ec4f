import { AIMessage, type BaseMessage, ToolMessage } from "@langchain/core/messages";
import type { RunnableConfig } from "@langchain/core/runnables";
import { type StructuredToolInterface, tool } from "@langchain/core/tools";
import { type BaseCheckpointSaver, Command, END, MemorySaver, MessagesAnnotation, START, StateGraph, interrupt } from "@langchain/langgraph";
import { PostgresSaver } from "@langchain/langgraph-checkpoint-postgres";
import { ToolNode, createReactAgent, toolsCondition } from "@langchain/langgraph/prebuilt";
import { BaseChatModel } from "@langchain/core/language_models/chat_models";
import type { ChatResult } from "@langchain/core/outputs";
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { type Gate, HttpTransport, createGate } from "../../lib/sdk";
import type { BeginRequest } from "../../lib/sdk/types";
import { type ApprovalInterrupt, gateGraphTools } from "../../lib/sdk/adapters/langgraph";
import { AdapterWorld, Backend, sleep, waitFor } from "../helpers/adapter-world";
import { adminQuery, postgresAvailable, postgresUrlFor } from "../helpers/postgres";

/**
 * LangGraph.js driving gated LangChain tools through ToolNode against a real gate server: a scripted
 * model node (no network) re-plans, calls in parallel, is interrupted for approval and resumed with
 * Command({ resume }), and a graph is resumed from its Postgres checkpointer after a crash. Each
 * scenario runs beside the same graph without the gate, which shows the duplicate.
 */
type Call = { id: string; name: string; args: Record<string, unknown> };

/** The model node: the calls for the number of tool results so far in the thread, then "done". */
function scriptedModel(turns: Call[][] | Record<number, Call[]>) {
  return (state: { messages: BaseMessage[] }) => {
    const results = state.messages.filter((m) => m.getType() === "tool").length;
    const calls = Array.isArray(turns) ? turns.find((_, turn) => turns.slice(0, turn).flat().length === results) : turns[results];
    if (!calls) return { messages: [new AIMessage("done")] };
    return { messages: [new AIMessage({ content: "", tool_calls: calls.map((c) => ({ id: c.id, name: c.name, args: c.args, type: "tool_call" as const })) })] };
  };
}

function graphOf(turns: Call[][] | Record<number, Call[]>, tools: StructuredToolInterface[], checkpointer: BaseCheckpointSaver | undefined, handleToolErrors = true) {
  return new StateGraph(MessagesAnnotation)
    .addNode("agent", scriptedModel(turns))
    .addNode("tools", new ToolNode(tools, { handleToolErrors }))
    .addEdge(START, "agent")
    .addConditionalEdges("agent", toolsCondition, ["tools", END])
    .addEdge("tools", "agent")
    .compile({ checkpointer });
}

/** The same script as a LangChain chat model, for the prebuilt agents (which bind tools to a model). */
class ScriptedChatModel extends BaseChatModel {
  constructor(private readonly turns: Call[][]) {
    super({});
  }
  _llmType() {
    return "scripted";
  }
  override bindTools() {
    return this as never;
  }
  async _generate(messages: BaseMessage[]): Promise<ChatResult> {
    const message = scriptedModel(this.turns)({ messages }).messages[0]!;
    return { generations: [{ text: "", message }] };
  }
}

/** What the model was shown for each tool call, by call id. */
function outputs(messages: BaseMessage[]): Record<string, string> {
  const shown: Record<string, string> = {};
  for (const m of messages) if (m instanceof ToolMessage) shown[m.tool_call_id] = typeof m.content === "string" ? m.content : JSON.stringify(m.content);
  return shown;
}

/** The app's own limit on a tool call (LangGraph has none of its own): past it the model is told it timed out. */
function withTimeout(inner: StructuredToolInterface, ms: number): StructuredToolInterface {
  return tool(
    async (_input: unknown, config: RunnableConfig & { toolCall?: { id?: string; name: string; args: Record<string, unknown> } }) => {
      const call = inner.invoke({ ...config.toolCall!, type: "tool_call" }, config) as Promise<ToolMessage>;
      const timer = sleep(ms).then(() => "timeout" as const);
      const first = await Promise.race([call, timer]);
      if (first === "timeout") throw new Error(`${inner.name} timed out after ${ms} ms`);
      return first.content;
    },
    { name: inner.name, description: inner.description, schema: inner.schema as never },
  );
}

const thread = (label: string) => ({ configurable: { thread_id: `thread_${label}_${randomBytes(4).toString("hex")}` } });

let world: AdapterWorld;
let pgDatabase: string | null = null;
const savers: PostgresSaver[] = [];
beforeAll(async () => {
  world = await AdapterWorld.start();
  await world.admin.put("delete_repo", { preview: "approve" }, "test: a human approves each deletion");
  if (await postgresAvailable()) {
    pgDatabase = `idemgate_lg_${process.pid}_${randomBytes(3).toString("hex")}`;
    await adminQuery(`CREATE DATABASE ${pgDatabase}`);
  }
});
afterAll(async () => {
  await world?.stop();
  // A test that failed half-way left its saver open: close every pool before the database goes.
  for (const saver of savers) await Promise.resolve(saver.end()).catch(() => undefined);
  if (pgDatabase) await adminQuery(`DROP DATABASE IF EXISTS ${pgDatabase} WITH (FORCE)`).catch(() => undefined);
});

/** A checkpointer as a new process would open it: Postgres when there is one, else the in-memory saver given. */
async function checkpointer(fallback: MemorySaver): Promise<BaseCheckpointSaver & { end?: () => Promise<void> }> {
  if (!pgDatabase) return fallback;
  const saver = PostgresSaver.fromConnString(postgresUrlFor(pgDatabase));
  savers.push(saver);
  await saver.setup();
  return saver;
}

describe("LangGraph adapter: gateGraphTools()", () => {
  const chargeSchema = z.object({ orderId: z.string(), amount: z.number(), memo: z.string().optional() });
  function chargeTool(backend: Backend, slowFirstMs: number) {
    let calls = 0;
    return tool(
      async ({ orderId, amount }: z.infer<typeof chargeSchema>) =>
        backend.act(orderId, calls++ === 0 ? slowFirstMs : 0, () => ({ chargeId: `ch_${orderId}`, amount })),
      { name: "charge_card", description: "Charges the order's card", schema: chargeSchema },
    );
  }
  const gated = (gate: Gate, tools: StructuredToolInterface[], approval = false) =>
    gateGraphTools(gate, tools, {
      tools: {
        charge_card: { scope: "orderId" },
        refund_order: { scope: "orderId" },
        delete_repo: { scope: "repo", ...(approval ? { approval: ({ repo }: { repo: string }) => ({ summary: `deletes ${repo}`, affected: [repo] }) } : {}) },
      },
    });

  it("timeout → re-plan with a new call id and paraphrased args: one charge (without the gate: two)", async () => {
    const turns: Call[][] = [
      [{ id: "call_1", name: "charge_card", args: { orderId: "o-1", amount: 42 } }],
      [{ id: "call_2", name: "charge_card", args: { orderId: "o-1", amount: 42, memo: "retrying after the timeout" } }],
    ];
    for (const withGate of [true, false]) {
      const backend = new Backend();
      const base = chargeTool(backend, 2_500);
      const tools = withGate ? gated(world.gate(), [base]) : [base];
      const graph = graphOf(turns, [withTimeout(tools[0]!, 2_000)], new MemorySaver());
      const final = await graph.invoke({ messages: [{ role: "user", content: "charge o-1" }] }, thread("timeout"));
      const shown = outputs(final.messages);
      expect(shown.call_1).toContain("timed out");
      // The re-plan got the charge's result either way: gated, by waiting out the first attempt's lease.
      expect(JSON.parse(shown.call_2!)).toEqual({ chargeId: "ch_o-1", amount: 42 });
      await waitFor("the timed-out charge to finish in the background", () => backend.inFlight === 0);
      expect(backend.count()).toBe(withGate ? 1 : 2);
    }
  });

  it("parallel identical calls in one AI message: one charge, both ToolMessages carry it (without the gate: two)", async () => {
    const args = { orderId: "o-2", amount: 10 };
    const turns: Call[][] = [[{ id: "call_a", name: "charge_card", args }, { id: "call_b", name: "charge_card", args }]];
    for (const withGate of [true, false]) {
      const backend = new Backend();
      const base = chargeTool(backend, 0);
      const graph = graphOf(turns, withGate ? gated(world.gate(), [base]) : [base], new MemorySaver());
      const final = await graph.invoke({ messages: [{ role: "user", content: "charge o-2" }] }, thread("parallel"));
      const shown = outputs(final.messages);
      expect(JSON.parse(shown.call_a!)).toEqual({ chargeId: "ch_o-2", amount: 10 });
      expect(shown.call_b).toEqual(shown.call_a);
      expect(backend.count()).toBe(withGate ? 1 : 2);
    }
  });

  it("crash after the effect, before the checkpoint: the graph resumed from its checkpointer refunds once (without the gate: twice)", async () => {
    const turns: Call[][] = [[{ id: "call_r", name: "refund_order", args: { orderId: "o-3" } }]];
    for (const withGate of [true, false]) {
      const backend = new Backend();
      const memory = new MemorySaver();
      const config = thread("crash");
      let crash = true;
      const refund = tool(
        async ({ orderId }: { orderId: string }) => {
          backend.effects.push(orderId);
          return { refunded: orderId };
        },
        { name: "refund_order", description: "Refunds an order", schema: z.object({ orderId: z.string() }) },
      );
      // The process dies right after the tool's effect (and the gate's record), before LangGraph writes the step.
      const dying = (inner: StructuredToolInterface) =>
        tool(
          async (_input: unknown, c: RunnableConfig & { toolCall?: { id?: string; name: string; args: Record<string, unknown> } }) => {
            const message = (await inner.invoke({ ...c.toolCall!, type: "tool_call" }, c)) as ToolMessage;
            if (crash) throw new Error("the agent process died");
            return message.content;
          },
          { name: inner.name, description: inner.description, schema: inner.schema as never },
        );

      const saverA = await checkpointer(memory);
      const toolsA = withGate ? gated(world.gate(), [refund]) : [refund];
      const graphA = graphOf(turns, [dying(toolsA[0]!)], saverA, false);
      await expect(graphA.invoke({ messages: [{ role: "user", content: "refund o-3" }] }, config)).rejects.toThrow("the agent process died");
      await saverA.end?.();
      expect(backend.count()).toBe(1);

      // A new process: a new checkpointer connection, a new gate client, the same thread, resumed.
      crash = false;
      const saverB = await checkpointer(memory);
      const toolsB = withGate ? gated(world.gate(), [refund]) : [refund];
      const graphB = graphOf(turns, [dying(toolsB[0]!)], saverB, false);
      expect((await graphB.getState(config)).next).toEqual(["tools"]);
      const final = await graphB.invoke(null, config);
      await saverB.end?.();
      expect(JSON.parse(outputs(final.messages).call_r!)).toEqual({ refunded: "o-3" });
      expect(backend.count()).toBe(withGate ? 1 : 2);
    }
  });

  const repoSchema = z.object({ repo: z.string() });
  const deleteTurns: Call[][] = [[{ id: "call_d", name: "delete_repo", args: { repo: "acme/legacy" } }]];
  function deleteRepo(backend: Backend) {
    return tool(
      async ({ repo }: { repo: string }) => {
        backend.effects.push(repo);
        return { deleted: repo };
      },
      { name: "delete_repo", description: "Deletes a repository", schema: repoSchema },
    );
  }
  /** The LangGraph idiom without the gate: interrupt() for the human's OK, then the effect. */
  function deleteRepoAsking(backend: Backend) {
    return tool(
      async ({ repo }: { repo: string }) => {
        const answer = interrupt<{ repo: string }, { approved: boolean }>({ repo });
        if (!answer.approved) return "refused";
        backend.effects.push(repo);
        return { deleted: repo };
      },
      { name: "delete_repo", description: "Deletes a repository", schema: repoSchema },
    );
  }

  it("approval: interrupt() with the call in Idemgate's inbox; approved there, Command({ resume }) deletes once, and resuming the stale checkpoint executes nothing (without the gate: twice)", async () => {
    for (const withGate of [true, false]) {
      const backend = new Backend();
      const memory = new MemorySaver();
      const config = thread("approve");
      const saverA = await checkpointer(memory);
      const graphA = graphOf(deleteTurns, withGate ? gated(world.gate(), [deleteRepo(backend)], true) : [deleteRepoAsking(backend)], saverA);
      const paused = await graphA.invoke({ messages: [{ role: "user", content: "delete acme/legacy" }] }, config);
      const interrupts = (paused as { __interrupt__?: { value: unknown }[] }).__interrupt__ ?? [];
      expect(interrupts).toHaveLength(1);
      const pausedAt = (await graphA.getState(config)).config;
      await saverA.end?.();
      expect(backend.count()).toBe(0);

      if (withGate) {
        const asked = interrupts[0]!.value as ApprovalInterrupt;
        expect(asked).toMatchObject({ idemgate: "approval", tool: "delete_repo", toolCallId: "call_d", args: { repo: "acme/legacy" } });
        const pending = await world.pendingPreview(config.configurable.thread_id);
        expect(pending.previewId).toBe(asked.previewId);
        await world.decide(pending.previewId, true, "archived for a year");
      }

      const saverB = await checkpointer(memory);
      const graphB = graphOf(deleteTurns, withGate ? gated(world.gate(), [deleteRepo(backend)], true) : [deleteRepoAsking(backend)], saverB);
      const final = await graphB.invoke(new Command({ resume: { approved: true } }), config);
      expect(JSON.parse(outputs(final.messages).call_d!)).toEqual({ deleted: "acme/legacy" });
      expect(backend.count()).toBe(1);

      // The checkpoint taken at the interrupt, resumed again (time travel): the approval is spent.
      const replayed = await graphB.invoke(new Command({ resume: { approved: true } }), pausedAt);
      await saverB.end?.();
      expect(JSON.parse(outputs(replayed.messages).call_d!)).toEqual({ deleted: "acme/legacy" });
      expect(backend.count()).toBe(withGate ? 1 : 2);
      if (withGate) expect(await world.previewsOf(config.configurable.thread_id)).toHaveLength(1);
    }
  });

  it("approval denied in Idemgate: resumed, the model sees the refusal and nothing runs; refused in the app, likewise", async () => {
    const backend = new Backend();
    const config = thread("deny");
    const graph = graphOf(deleteTurns, gated(world.gate(), [deleteRepo(backend)], true), new MemorySaver());
    await graph.invoke({ messages: [{ role: "user", content: "delete acme/legacy" }] }, config);
    const pending = await world.pendingPreview(config.configurable.thread_id);
    await world.decide(pending.previewId, false, "that repo still has users");
    const final = await graph.invoke(new Command({ resume: { approved: true } }), config);
    expect(outputs(final.messages).call_d).toContain("A human denied this action after seeing its preview: that repo still has users");

    const inApp = thread("deny-app");
    await graph.invoke({ messages: [{ role: "user", content: "delete acme/legacy" }] }, inApp);
    const refused = await graph.invoke(new Command({ resume: { approved: false, note: "not today" } }), inApp);
    expect(outputs(refused.messages).call_d).toContain("A human refused this action: not today");
    expect(backend.count()).toBe(0);
  });

  it("subgraph: a subgraph re-planning the parent graph's charge shares the thread's run and charges nothing more (without the gate: two)", async () => {
    /** Records every begin, to see the run and agent each call went under. */
    class Recording extends HttpTransport {
      readonly begins: BeginRequest[] = [];
      override begin(request: BeginRequest, signal?: AbortSignal) {
        this.begins.push(request);
        return super.begin(request, signal);
      }
    }
    for (const withGate of [true, false]) {
      const backend = new Backend();
      const transport = new Recording({ baseUrl: world.server.baseUrl, apiKey: world.apiKey });
      const gate = createGate({ transport });
      const base = chargeTool(backend, 0);
      const tools = withGate ? gated(gate, [base]) : [base];
      // The subgraph runs under its parent's checkpointer (LangGraph passes it down).
      const billing = graphOf({ 1: [{ id: "call_sub", name: "charge_card", args: { orderId: "o-6", amount: 5, memo: "billing re-checks" } }] }, tools, undefined);
      const parent = new StateGraph(MessagesAnnotation)
        .addNode("agent", scriptedModel([[{ id: "call_top", name: "charge_card", args: { orderId: "o-6", amount: 5 } }]]))
        .addNode("tools", new ToolNode(tools))
        .addNode("billing", billing)
        .addEdge(START, "agent")
        .addConditionalEdges("agent", (state) => ((state.messages.at(-1) as AIMessage).tool_calls?.length ? "tools" : "billing"), ["tools", "billing"])
        .addEdge("tools", "agent")
        .addEdge("billing", END)
        .compile({ checkpointer: new MemorySaver() });
      const config = thread("subgraph");
      const final = await parent.invoke({ messages: [{ role: "user", content: "charge o-6" }] }, config);
      const shown = outputs(final.messages);
      expect(JSON.parse(shown.call_sub!)).toEqual(JSON.parse(shown.call_top!));
      expect(backend.count()).toBe(withGate ? 1 : 2);
      if (withGate) {
        expect(transport.begins.map((b) => [b.runId, b.agentId, b.toolCallId])).toEqual([
          [config.configurable.thread_id, undefined, "call_top"],
          [config.configurable.thread_id, "billing", "call_sub"],
        ]);
      }
    }
  });

  it("createReactAgent: the prebuilt agent runs the gated tools; parallel identical calls charge once (without the gate: two)", async () => {
    const args = { orderId: "o-7", amount: 3 };
    const turns: Call[][] = [[{ id: "call_x", name: "charge_card", args }, { id: "call_y", name: "charge_card", args }]];
    for (const withGate of [true, false]) {
      const backend = new Backend();
      const base = chargeTool(backend, 0);
      const agent = createReactAgent({ llm: new ScriptedChatModel(turns), tools: withGate ? gated(world.gate(), [base]) : [base], checkpointer: new MemorySaver() });
      const final = await agent.invoke({ messages: [{ role: "user", content: "charge o-7" }] }, thread("prebuilt"));
      const shown = outputs(final.messages);
      expect(JSON.parse(shown.call_x!)).toEqual({ chargeId: "ch_o-7", amount: 3 });
      expect(shown.call_y).toEqual(shown.call_x);
      expect(backend.count()).toBe(withGate ? 1 : 2);
    }
  });
});
