import { expect } from "vitest";
import { OperatorPreviewSchema, PreviewListSchema } from "../../../lib/contract/previews";
import { RunCompensationSchema } from "../../../lib/contract/sagas";
import { BeginResponseSchema } from "../../../lib/contract/v1";
import { ToolError, createGate } from "../../../lib/sdk";
import { callBackend } from "../../helpers/order-backend";
import type { MultiStepEnv, MultiStepRow } from "./multi-step";

/**
 * The multi-step family's ways out (#37): a plan an operator finishes after a replayed failure, and
 * a preview the agent finishes after it timed out waiting. Same table as multi-step.ts: effects, and
 * effects beyond what the user asked for, through the gate and without it.
 */

/**
 * An undo fails permanently; a second runner begins it and is replayed the failure; the operator
 * retries it: exactly one more attempt, which refunds, then the plan ends compensated.
 */
export async function undoReplayedThenRetried(env: MultiStepEnv): Promise<MultiStepRow> {
  const SIZE = env.size;
  const gate = createGate({ baseUrl: env.baseUrl, apiKey: env.apiKey, toolRetry: false });
  const attempts = new Map<string, number>();
  const compensators = {
    ms_refund_order: (args: unknown, ctx: { idempotencyKey: string }) => {
      attempts.set(ctx.idempotencyKey, (attempts.get(ctx.idempotencyKey) ?? 0) + 1);
      // The PSP refuses the first try of each refund.
      if (attempts.get(ctx.idempotencyKey) === 1) throw new ToolError("PSP refused the refund", { retryable: false });
      return callBackend(env.backend.url, "refund", ctx.idempotencyKey, args);
    },
    ms_release_stock: (args: unknown, ctx: { idempotencyKey: string }) => callBackend(env.backend.url, "release", ctx.idempotencyKey, args),
  };
  const before = { refund: env.backend.count("refund"), release: env.backend.count("release") };
  const agentHeaders = { authorization: `Bearer ${env.apiKey}`, "content-type": "application/json" };
  await Promise.all(
    Array.from({ length: SIZE }, async (_, i) => {
      const runId = `chaos_wayout_${i}_${Date.now()}`;
      await gate.run({ runId }, async () => {
        await gate.call({ tool: "ms_reserve_stock", step: "reserve", args: { sku: `sku-w${i}` } }, (ctx) => callBackend(env.backend.url, "reserve", ctx.idempotencyKey, { sku: `sku-w${i}` }), {
          compensate: (r) => ({ tool: "ms_release_stock", args: r }),
        });
        await gate.call({ tool: "ms_charge_order", step: "charge", args: { amount: 300 + i } }, (ctx) => callBackend(env.backend.url, "charge", ctx.idempotencyKey, { amount: 300 + i }), {
          compensate: (r) => ({ tool: "ms_refund_order", args: r }),
        });
      });
      const stopped = await gate.abort(runId, "the user cancelled", { compensators });
      expect(stopped.state).toBe("compensation_failed");
      const failed = stopped.plan.steps[0]!;
      // A second runner (a sweeper) begins the failed undo: the failure is replayed, nothing runs.
      const res = await fetch(`${env.baseUrl}/api/v1/runs/${runId}/compensations/${failed.callId}/begin`, { method: "POST", headers: agentHeaders, body: "{}" });
      expect(BeginResponseSchema.parse(await res.json())).toMatchObject({ decision: "replay", status: "failed" });
      const path = env.operator.p(env.projectId, `/runs/${runId}/compensations/${failed.callId}/retry`);
      expect(await env.operator.call(RunCompensationSchema, "POST", path, { reason: "chaos: PSP is back" })).toMatchObject({ state: "compensating", nextCallId: failed.callId });
      const done = await gate.compensate(runId, { compensators });
      expect(done.state).toBe("compensated");
      expect(attempts.get(failed.compensationKey)).toBe(2);
    }),
  );
  const refunds = env.backend.count("refund") - before.refund;
  const releases = env.backend.count("release") - before.release;

  // Without the gate nothing records that the refund failed, nor that it then ran: the sweeper runs
  // it again when it finds the order not refunded (the 2nd try succeeds), and so does the operator's
  // retry: two refunds and one release per order, one refund too many.
  const baselineRefunds = SIZE * 2;
  const row: MultiStepRow = {
    scenario: "saga: undo fails, replayed to a 2nd runner, retried by an operator",
    requests: SIZE,
    gate: { effects: refunds + releases, unwanted: refunds + releases - 2 * SIZE },
    baseline: { effects: baselineRefunds + SIZE, unwanted: baselineRefunds - SIZE },
  };
  expect(refunds).toBe(SIZE);
  expect(releases).toBe(SIZE);
  return row;
}

/**
 * A destructive call under `preview: approve` times out waiting (`preview_pending`); the operator
 * approves later; the agent calls again: it runs once, on the one preview it asked for.
 */
export async function previewTimedOutThenApproved(env: MultiStepEnv): Promise<MultiStepRow> {
  const SIZE = env.size;
  const gate = createGate({ baseUrl: env.baseUrl, apiKey: env.apiKey });
  const deleted: string[] = [];
  const exec = (repo: string) => () => {
    deleted.push(repo);
    return { deleted: repo };
  };
  const dryRun = (args: unknown) => ({ summary: `deletes ${(args as { repo: string }).repo}`, affected: [(args as { repo: string }).repo] });
  const runs = Array.from({ length: SIZE }, (_, i) => `chaos_preview_late_${i}_${Date.now()}`);
  const spec = (runId: string, i: number) => ({ tool: "ms_delete_repo", runId, step: "delete", args: { repo: `acme/late-${i}` } });
  // The agent gives up waiting, and tries again before anyone decided.
  for (let round = 0; round < 2; round++) {
    const timedOut = await Promise.all(runs.map((runId, i) => gate.call(spec(runId, i), exec(`acme/late-${i}`), { preview: dryRun, previewTimeoutMs: 100 })));
    expect(timedOut.every((r) => !r.ok && r.status === "preview_pending")).toBe(true);
  }
  const list = await env.operator.call(PreviewListSchema, "GET", env.operator.p(env.projectId, "/previews?limit=200"));
  const mine = list.previews.filter((p) => runs.includes(p.runId));
  expect(mine).toHaveLength(SIZE);
  for (const p of mine) await env.operator.call(OperatorPreviewSchema, "POST", env.operator.p(env.projectId, `/previews/${p.previewId}/approve`), { note: "chaos: approved late" });
  const results = await Promise.all(runs.map((runId, i) => gate.call(spec(runId, i), exec(`acme/late-${i}`), { preview: dryRun, previewTimeoutMs: 10_000 })));
  expect(results.every((r) => r.ok)).toBe(true);
  const inbox = (await env.operator.call(PreviewListSchema, "GET", env.operator.p(env.projectId, "/previews?limit=200"))).previews.filter((p) => runs.includes(p.runId));

  // Without the gate there is nothing to wait on: each of the three decisions deletes at once.
  const baselineEffects = 3 * SIZE;
  const row: MultiStepRow = {
    scenario: "preview: timed out, approved later, called again",
    requests: SIZE,
    gate: { effects: deleted.length, unwanted: deleted.length - SIZE + (inbox.length - SIZE) },
    baseline: { effects: baselineEffects, unwanted: baselineEffects - SIZE },
  };
  expect(deleted.length).toBe(SIZE);
  expect(inbox).toHaveLength(SIZE);
  expect(inbox.every((p) => p.status === "used")).toBe(true);
  return row;
}
