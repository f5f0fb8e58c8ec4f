import { type APIRequestContext, expect } from "@playwright/test";
import type { Agent } from "./agent";

/**
 * Issue #38's scripted agent and the test's own tally of what it was answered: the figures specs
 * read the dashboard against this tally, never against the dashboard's own numbers.
 */

/** Beside screens.spec.ts's screenshots (test-results/screens unless SCREENS_DIR says otherwise). */
export const SHOTS = process.env.SCREENS_DIR ?? "test-results/screens";

/** The decisions each tile and bar counts, as the issue words them (a tile's id, its bar's class). */
export const GROUPS = [
  { tile: "executions", bar: "executions", decisions: ["execute", "verify"] },
  { tile: "dedup-hits", bar: "dedupHits", decisions: ["replay", "in_progress", "refused"] },
  { tile: "conflicts", bar: "conflicts", decisions: ["conflict"] },
  { tile: "approval-required", bar: "approvalRequired", decisions: ["approval_required"] },
  { tile: "preview-required", bar: "previewRequired", decisions: ["preview_required"] },
  { tile: "blocked", bar: "blocked", decisions: ["blocked"] },
];

/** The timed tool's reported costs (USD), summed by the test in cents so no float drift hides a wrong sum. */
export const COST_CENTS = [125, 10, 20, 333, 1, 999];
/** Policy revisions the test saves for the timed tool: the tool page marks each on every chart. */
export const TIMED_REVISIONS = 2;

export function figureTools(tag: string) {
  return {
    dedup: `create_ticket_${tag}`,
    loop: `search_kb_${tag}`,
    preview: `delete_user_${tag}`,
    timed: `render_pdf_${tag}`,
    strict: `transfer_funds_${tag}`,
    burst: `send_invoice_${tag}`,
    shadow: `refund_order_${tag}`,
  };
}

/** Decisions by tool, as the agent was answered. */
export class Tally {
  private readonly byTool = new Map<string, Map<string, number>>();

  constructor(private readonly agent: Agent) {}

  /** A begin counted and left as answered (a concurrent duplicate completes nothing). */
  async begin(body: Record<string, unknown>) {
    const answer = await this.agent.begin(body);
    this.add(String(body.tool), answer.decision);
    return answer;
  }

  /** A begin counted, and completed when it was told to execute. */
  async call(body: Record<string, unknown>) {
    const answer = await this.begin(body);
    if (answer.decision === "execute") await this.agent.complete(answer.callId, answer.leaseToken, { ok: true });
    return answer;
  }

  add(tool: string, decision: string): void {
    const byDecision = this.byTool.get(tool) ?? new Map<string, number>();
    byDecision.set(decision, (byDecision.get(decision) ?? 0) + 1);
    this.byTool.set(tool, byDecision);
  }

  count(tool: string, decision: string): number {
    return this.byTool.get(tool)?.get(decision) ?? 0;
  }

  /** Every begin of one tool, whatever it was answered. */
  toolTotal(tool: string): number {
    return [...(this.byTool.get(tool)?.values() ?? [])].reduce((sum, n) => sum + n, 0);
  }

  /** Every begin answered `decision` (all begins without one). */
  total(decision?: string): number {
    return [...this.byTool.keys()].reduce((sum, tool) => sum + (decision ? this.count(tool, decision) : this.toolTotal(tool)), 0);
  }

  tools(): string[] {
    return [...this.byTool.keys()];
  }

  describe(tool: string): string {
    return JSON.stringify([...(this.byTool.get(tool) ?? [])]);
  }
}

/** Saves a tool's policy through the admin API as a signed-in operator (the audit log records it). */
export async function putPolicy(request: APIRequestContext, origin: string, projectId: string, tool: string, policy: Record<string, unknown>, reason: string): Promise<void> {
  const res = await request.put(`/api/v1/admin/projects/${projectId}/policies/${tool}`, { data: { policy, reason }, headers: { origin } });
  expect(res.status(), `${tool}: ${reason}`).toBe(200);
}

export interface FiguresWorld {
  request: APIRequestContext;
  baseURL: string;
  projectId: string;
  apiKey: string;
  agent: Agent;
  tally: Tally;
  tag: string;
}

/**
 * The agent's traffic, one history per §1 case: it dedupes, loops (a loop block before any record),
 * meets a tool under `preview: approve`, changes args under a strict key (conflicts), asks for
 * resends (approval required), sends duplicates at once while a call runs and after it finished,
 * and calls a tool in shadow mode; a policy changes after its calls. A timed tool's executions
 * take a while, fail now and then and report costs (the per-tool page).
 */
export async function scriptFiguresTraffic(world: FiguresWorld) {
  const { request, baseURL, projectId, agent, tally, tag } = world;
  const TOOLS = figureTools(tag);
  const put = (tool: string, policy: Record<string, unknown>, reason: string) => putPolicy(request, baseURL, projectId, tool, policy, reason);

  await put(TOOLS.preview, { preview: "approve" }, "figures e2e: a tool that asks for a preview first");
  // Dedup: each run executes once, then the model asks again (a replay).
  for (let run = 0; run < 4; run++) {
    const body = { tool: TOOLS.dedup, runId: `run_d_${tag}_${run}`, stepId: "create", args: { title: `t${run}` } };
    await tally.call(body);
    await tally.call(body);
  }
  // A loop: the same search under new step ids; the third is blocked before it has any record.
  for (let run = 0; run < 2; run++) {
    for (let step = 0; step < 3; step++) await tally.call({ tool: TOOLS.loop, runId: `run_l_${tag}_${run}`, stepId: `s${step}`, args: { q: "same" } });
  }
  for (let run = 0; run < 3; run++) await tally.call({ tool: TOOLS.preview, runId: `run_p_${tag}_${run}`, stepId: "delete", args: { user: run } });
  // Conflicts: a tool that refuses other args under a key it has seen; the model re-plans the amount.
  await put(TOOLS.strict, { onArgsMismatch: "reject" }, "figures e2e: other args under one key are a conflict");
  for (let run = 0; run < 2; run++) {
    await tally.call({ tool: TOOLS.strict, runId: `run_s_${tag}_${run}`, stepId: "transfer", args: { amount: 100 } });
    await tally.call({ tool: TOOLS.strict, runId: `run_s_${tag}_${run}`, stepId: "transfer", args: { amount: 120 } });
  }
  // The strict tool's policy changes after its calls: they were decided under an older revision.
  await put(TOOLS.strict, { onArgsMismatch: "reject", ttlSeconds: 7_200 }, "figures e2e: a revision after the calls");
  // Concurrent duplicates: five copies while the first runs (in progress), three at once after it finished.
  const burst = { tool: TOOLS.burst, runId: `run_b_${tag}`, stepId: "send", args: { invoice: 7 } };
  const first = await tally.begin(burst);
  if (first.decision !== "execute") throw new Error(`burst: ${first.decision}`);
  await Promise.all(Array.from({ length: 5 }, () => tally.begin(burst)));
  await agent.complete(first.callId, first.leaseToken, { ok: true });
  await Promise.all(Array.from({ length: 3 }, () => tally.begin(burst)));
  // A tool in shadow mode: its duplicates run again, with what enforce would have answered recorded.
  await put(TOOLS.shadow, { mode: "shadow" }, "figures e2e: a tool watched in shadow mode");
  for (let i = 0; i < 3; i++) await tally.call({ tool: TOOLS.shadow, runId: `run_sh_${tag}`, stepId: "refund", args: { order: 1 } });
  // Approval required: the agent asks to send a finished ticket again (bypass: approval, the default).
  for (const run of [0, 1]) {
    await tally.call({ tool: TOOLS.dedup, runId: `run_d_${tag}_${run}`, stepId: "create", args: { title: `t${run}` }, bypass: { reason: "the customer says it never arrived" } });
  }
  // Revisions of the timed tool's policy, each marked on every chart of its page.
  for (let v = 0; v < TIMED_REVISIONS; v++) await put(TOOLS.timed, { ttlSeconds: 3_600 + v }, `figures e2e: revision ${v + 1}`);
  const timedCalls = await timedExecutions(world, TOOLS.timed);

  expect(tally.total("blocked") - tally.count(TOOLS.burst, "blocked")).toBe(2);
  expect(tally.total("preview_required")).toBe(3);
  expect(tally.total("conflict")).toBe(2);
  expect(tally.total("approval_required")).toBe(2);
  expect(tally.count(TOOLS.burst, "in_progress"), tally.describe(TOOLS.burst)).toBe(5);
  // After it finished they are steps of the run again: replays until the loop rule trips, then blocked.
  expect(tally.count(TOOLS.burst, "replay") + tally.count(TOOLS.burst, "blocked")).toBe(3);
  return { TOOLS, timedCalls, burstCallId: first.callId };
}

/**
 * Six executions of increasing length, two of them failing, each reporting what it cost. The pause
 * is the tool's own running time (what the page's latency reports), not a wait on the gate: the
 * test computes the latency it expects from the ledger it wrote.
 */
async function timedExecutions({ baseURL, apiKey, agent, tally, tag }: FiguresWorld, tool: string) {
  const calls: { callId: string; failed: boolean }[] = [];
  for (let i = 0; i < COST_CENTS.length; i++) {
    const answer = await agent.begin({ tool, runId: `run_t_${tag}_${i}`, stepId: "render", args: { doc: i } });
    if (answer.decision !== "execute") throw new Error(`expected execute, got ${answer.decision}`);
    tally.add(tool, "execute");
    await new Promise((resolve) => setTimeout(resolve, 40 * (i + 1)));
    const failed = i % 3 === 2;
    const res = await fetch(`${baseURL}/api/v1/calls/${answer.callId}/complete`, {
      method: "POST",
      headers: { authorization: `Bearer ${apiKey}`, "content-type": "application/json" },
      body: JSON.stringify({
        leaseToken: answer.leaseToken,
        cost: { amount: COST_CENTS[i]! / 100, currency: "USD" },
        ...(failed ? { outcome: "failed", error: { message: "renderer crashed", retryable: false } } : { outcome: "succeeded", result: { pages: i } }),
      }),
    });
    expect(res.status).toBe(200);
    calls.push({ callId: answer.callId, failed });
  }
  return calls;
}
