import { randomUUID } from "node:crypto";
import type { LanguageModelV3CallOptions, LanguageModelV3GenerateResult } from "@ai-sdk/provider";
import { MockLanguageModelV3 } from "ai/test";
import type { Mode, ToolBackend } from "./backend";
import { type Rng, pick, rngFor, seedOf } from "./prng";

/** One user request, as the user message carries it. */
export interface Task {
  orderId: string;
  amount: number;
  email: string;
}

export interface ToolCallView {
  id: string;
  tool: string;
  input: Record<string, unknown>;
}
export interface ToolResultView {
  id: string;
  tool: string;
  ok: boolean;
  output: unknown;
}

/** What the scripted model reads from its prompt: the task and the run so far. */
export interface View {
  task: Task;
  calls: ToolCallView[];
  results: ToolResultView[];
}

export type Move = { call: { tool: string; input: Record<string, unknown> }[] } | { say: string };

/** The "reasoning" of a scripted agent: from what it sees, what it does next. */
export type Brain = (view: View, rng: Rng) => Move;

export interface ModelEnv {
  backend: ToolBackend;
  scenario: string;
  mode: Mode;
  runId: string;
  seed: number;
}

const usage = {
  inputTokens: { total: 10, noCache: 10, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 5, text: 5, reasoning: 0 },
};

/**
 * A language model played by a script, through the AI SDK's own mock model class: each turn it
 * reads the prompt the SDK built (user message, tool calls, tool results or errors) and answers
 * with tool calls — every one with a fresh toolCallId, as a real model's re-plan would have — or
 * with text. Every tool call it issues is counted in the backend, across processes.
 */
export function scriptedModel(env: ModelEnv, brain: Brain): MockLanguageModelV3 {
  const instance = randomUUID().slice(0, 8);
  const rng = rngFor(env.seed, env.scenario, env.mode, env.runId, instance);
  return new MockLanguageModelV3({
    doGenerate: async (options: LanguageModelV3CallOptions): Promise<LanguageModelV3GenerateResult> => {
      const move = brain(readPrompt(options.prompt), rng);
      if ("say" in move) {
        return { content: [{ type: "text", text: move.say }], finishReason: { unified: "stop", raw: "stop" }, usage, warnings: [] };
      }
      const content = move.call.map((call) => {
        const toolCallId = `call_${instance}_${randomUUID().slice(0, 8)}`;
        env.backend.recordModelCall(env.scenario, env.mode, env.runId, toolCallId, call.tool);
        return { type: "tool-call" as const, toolCallId, toolName: call.tool, input: JSON.stringify(call.input) };
      });
      return { content, finishReason: { unified: "tool-calls", raw: "tool_use" }, usage, warnings: [] };
    },
  });
}

type PromptPart = { type: string; text?: string; toolCallId?: string; toolName?: string; input?: unknown; output?: { type: string; value?: unknown } };

function readPrompt(prompt: LanguageModelV3CallOptions["prompt"]): View {
  let task: Task | undefined;
  const calls: ToolCallView[] = [];
  const results: ToolResultView[] = [];
  for (const message of prompt) {
    if (typeof message.content === "string") continue;
    for (const part of message.content as PromptPart[]) {
      if (message.role === "user" && part.type === "text" && !task) task = JSON.parse(part.text!) as Task;
      if (part.type === "tool-call") {
        const input = typeof part.input === "string" ? JSON.parse(part.input) : part.input;
        calls.push({ id: part.toolCallId!, tool: part.toolName!, input: input as Record<string, unknown> });
      }
      if (part.type === "tool-result") {
        const ok = part.output?.type === "json" || part.output?.type === "text";
        results.push({ id: part.toolCallId!, tool: part.toolName!, ok, output: part.output?.value });
      }
    }
  }
  if (!task) throw new Error("scripted model: no task in the prompt");
  return { task, calls, results };
}

export function userMessage(task: Task): string {
  return JSON.stringify(task);
}

/** Helpers for brains. */
export const succeeded = (view: View, tool: string) => view.results.some((r) => r.tool === tool && r.ok);
export const callsOf = (view: View, tool: string) => view.calls.filter((c) => c.tool === tool).length;

const MEMOS = ["Order payment", "Charge for the order", "Retrying the charge for this order", "Payment, second attempt", undefined];
const SUBJECTS = ["Your order is confirmed", "Order confirmation", "Thanks — we got your order", "Confirming your purchase"];
const BODIES = ["Hi! Your order is on its way.", "Hello, this confirms your order.", "Your order has been received and is being processed."];

/**
 * Same intent, different wording: what a model emits when it decides again. The `n`th re-plan
 * words it differently from the one before (a model that re-sends a failed call verbatim three
 * times is what the loop detector is for — that has its own scenario).
 */
export function paraphrase(tool: string, task: Task, rng: Rng, n = 0): Record<string, unknown> {
  const offset = seedOf(task.orderId) % 12;
  const nth = <T>(items: readonly T[]) => items[(offset + n) % items.length]!;
  switch (tool) {
    case "charge_card": {
      const memo = nth(MEMOS);
      return { orderId: task.orderId, amount: task.amount, ...(rng() < 0.5 ? { currency: pick(rng, ["usd", "USD"]) } : {}), ...(memo ? { memo } : {}) };
    }
    case "refund_payment":
      return { orderId: task.orderId, amount: task.amount, reason: nth(["customer request", "Customer asked for a refund", "refund requested"]) };
    case "send_email":
      return { orderId: task.orderId, to: task.email, subject: nth(SUBJECTS), body: pick(rng, BODIES) };
    case "export_report":
      return { orderId: task.orderId, format: nth(["pdf", "PDF", "csv"]) };
    default:
      return { orderId: task.orderId };
  }
}
