import { type ToolSet, tool } from "ai";
import { z } from "zod";
import { currentToolCall } from "../../lib/sdk";
import type { Mode, ToolBackend } from "./backend";

/** What goes wrong on one call of a tool. */
export type Fault =
  | { kind: "none"; delayMs?: number }
  /** The API did it, then the response was lost: the caller sees a timeout. */
  | { kind: "timeout_after"; delayMs?: number }
  /** The connection failed before the request reached the API. */
  | { kind: "network_before"; delayMs?: number }
  /** The agent process dies inside the tool (before or after the API acted). */
  | { kind: "crash"; effectFirst: boolean };

/** The fault for the nth call (from 0) of `tool` on an order, within this process. */
export type FaultPlan = (tool: string, orderId: string, nth: number) => Fault;

export interface ToolsEnv {
  backend: ToolBackend;
  scenario: string;
  mode: Mode;
  runId: string;
  faults?: FaultPlan;
  /** Crash scenario: which batch the marker belongs to. */
  batch?: string;
}

const never = () => new Promise<never>(() => {});
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * The agent's tools, with real side effects in the backend. Under the gate each receives the
 * gate's key through `currentToolCall()` and passes it on as the API's idempotency key; without the
 * gate there is no stable key to pass (the model's toolCallId changes with every re-plan).
 */
export function shopTools(env: ToolsEnv): ToolSet {
  const counters = new Map<string, number>();

  async function perform(name: string, orderId: string, payload: unknown, honorsKey: boolean): Promise<number> {
    const slot = `${name}\u0000${orderId}`;
    const nth = counters.get(slot) ?? 0;
    counters.set(slot, nth + 1);
    const fault = env.faults?.(name, orderId, nth) ?? { kind: "none" };
    if ("delayMs" in fault && fault.delayMs) await sleep(fault.delayMs);
    if (fault.kind === "network_before") throw Object.assign(new Error(`${name}: connect ECONNRESET`), { code: "ECONNRESET" });
    if (fault.kind === "crash" && !fault.effectFirst) {
      env.backend.markInflight(env.scenario, env.mode, env.batch ?? "", env.runId);
      return never();
    }
    const key = currentToolCall()?.idempotencyKey;
    const { effectId } = env.backend.applyEffect({ scenario: env.scenario, mode: env.mode, tool: name, orderId, key, honorsKey, payload });
    if (fault.kind === "crash") {
      env.backend.markInflight(env.scenario, env.mode, env.batch ?? "", env.runId);
      return never();
    }
    if (fault.kind === "timeout_after") {
      throw Object.assign(new Error(`${name}: no response within 10000 ms`), { name: "TimeoutError" });
    }
    return effectId;
  }

  return {
    lookup_order: tool({
      description: "Read an order",
      inputSchema: z.object({ orderId: z.string() }),
      execute: async ({ orderId }) => ({ orderId, status: "awaiting_payment" }),
    }),
    charge_card: tool({
      description: "Charge the customer's card (a payments API that honours idempotency keys)",
      inputSchema: z.object({ orderId: z.string(), amount: z.number(), currency: z.string().optional(), memo: z.string().optional() }),
      execute: async (input) => ({ chargeId: `ch_${await perform("charge_card", input.orderId, input, true)}`, amount: input.amount }),
    }),
    refund_payment: tool({
      description: "Refund a payment (a legacy API without idempotency keys)",
      inputSchema: z.object({ orderId: z.string(), amount: z.number(), reason: z.string().optional() }),
      execute: async (input) => ({ refundId: `re_${await perform("refund_payment", input.orderId, input, false)}` }),
    }),
    send_email: tool({
      description: "Send an email (SMTP: every request sends one)",
      inputSchema: z.object({ orderId: z.string(), to: z.string(), subject: z.string(), body: z.string() }),
      execute: async (input) => ({ messageId: `msg_${await perform("send_email", input.orderId, input, false)}` }),
    }),
    export_report: tool({
      description: "Generate and deliver a report (slow; no idempotency keys)",
      inputSchema: z.object({ orderId: z.string(), format: z.string().optional() }),
      execute: async (input) => ({ reportId: `rep_${await perform("export_report", input.orderId, input, false)}` }),
    }),
  };
}

/** How the adapter keys each tool: the order is the scope; reads are recorded, never deduped. */
export const TOOL_GATING = {
  lookup_order: { read: true },
  delegate_billing: { read: true },
  charge_card: { scope: "orderId" },
  refund_payment: { scope: "orderId" },
  send_email: { scope: "orderId" },
  export_report: { scope: "orderId" },
} as const;
