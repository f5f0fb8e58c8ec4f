import { expect } from "vitest";
import { OperatorPreviewSchema, PreviewListSchema } from "../../../lib/contract/previews";
import { ToolError, accepted, createGate } from "../../../lib/sdk";
import type { OperatorClient } from "../../helpers/operator-client";
import { type OrderBackend, callBackend } from "../../helpers/order-backend";
import { waitFor } from "../../helpers/storm-scenario";

/**
 * The multi-step family (#20): sagas, previews and async operations, each fault against the gate
 * and the same agent without it. `effects` are what happened; `unwanted` the effects beyond what the
 * user asked for (a second refund, a job started twice, a deletion nobody approved or of other args
 * than the approved ones). The gate's server needs `ms_delete_repo` under `preview: approve` (PREVIEW_TOOL) and
 * an operator to approve.
 */
export const PREVIEW_TOOL = "ms_delete_repo";

export interface MultiStepEnv {
  baseUrl: string;
  apiKey: string;
  projectId: string;
  operator: OperatorClient;
  backend: OrderBackend;
  size: number;
}

export interface MultiStepRow {
  scenario: string;
  requests: number;
  gate: { effects: number; unwanted: number };
  baseline: { effects: number; unwanted: number };
}

export function multiStepTable(rows: MultiStepRow[]): string {
  return [
    "",
    "Multi-step family (#20): effects vs unwanted effects, through the gate and without it",
    "",
    "| scenario | requests | effects (gate) | unwanted (gate) | effects (no gate) | unwanted (no gate) |",
    "|---|---:|---:|---:|---:|---:|",
    ...rows.map((r) => `| ${r.scenario} | ${r.requests} | ${r.gate.effects} | ${r.gate.unwanted} | ${r.baseline.effects} | ${r.baseline.unwanted} |`),
  ].join("\n");
}

/** The confirmation fails permanently and two runners undo the order at once: one refund and one release per order. */
export async function sagaTwoRunners(env: MultiStepEnv): Promise<MultiStepRow> {
  const SIZE = env.size;
  const gate = createGate({ baseUrl: env.baseUrl, apiKey: env.apiKey, toolRetry: false });
  const compensators = {
    ms_refund_order: (args: unknown, ctx: { idempotencyKey: string }) => callBackend(env.backend.url, "refund", ctx.idempotencyKey, args),
    ms_release_stock: (args: unknown, ctx: { idempotencyKey: string }) => callBackend(env.backend.url, "release", ctx.idempotencyKey, args),
  };
  const before = { refund: env.backend.count("refund"), release: env.backend.count("release") };
  await Promise.all(
    Array.from({ length: SIZE }, async (_, i) => {
      const runId = `chaos_saga_${i}_${Date.now()}`;
      await gate.run({ runId }, async () => {
        await gate.call({ tool: "ms_reserve_stock", step: "reserve", args: { sku: `sku-${i}` } }, (ctx) => callBackend(env.backend.url, "reserve", ctx.idempotencyKey, { sku: `sku-${i}` }), {
          compensate: (r) => ({ tool: "ms_release_stock", args: r }),
        });
        await gate.call({ tool: "ms_charge_order", step: "charge", args: { amount: 100 + i } }, (ctx) => callBackend(env.backend.url, "charge", ctx.idempotencyKey, { amount: 100 + i }), {
          compensate: (r) => ({ tool: "ms_refund_order", args: r }),
        });
        const confirm = await gate.call({ tool: "ms_send_order_email", step: "confirm", args: { order: i } }, () => {
          throw new ToolError("mailbox does not exist", { retryable: false });
        });
        expect(confirm.ok).toBe(false);
      });
      await gate.abort(runId, "confirmation failed permanently");
      // Two runners (a retry of the agent, a sweeper) run the same plan at once.
      const [a, b] = await Promise.all([gate.compensate(runId, { compensators }), gate.compensate(runId, { compensators })]);
      expect([a.state, b.state]).toEqual(["compensated", "compensated"]);
    }),
  );
  const refunds = env.backend.count("refund") - before.refund;
  const releases = env.backend.count("release") - before.release;

  // Without the gate: the same two runners each walk the undo list; nothing tells them a step is done.
  const orders = await Promise.all(
    Array.from({ length: SIZE }, async (_, i) => {
      const reservation = (await callBackend(env.backend.url, "reserve", `nogate-r-${i}-${Date.now()}`, { sku: `sku-${i}` })) as { reservationId: string };
      const charge = (await callBackend(env.backend.url, "charge", `nogate-c-${i}-${Date.now()}`, { amount: 100 + i })) as { chargeId: string };
      return { reservation, charge };
    }),
  );
  const baseBefore = env.backend.count("refund") + env.backend.count("release");
  const runner = async (o: (typeof orders)[number], n: number) => {
    await callBackend(env.backend.url, "refund", `runner-${n}-${o.charge.chargeId}`, o.charge);
    await callBackend(env.backend.url, "release", `runner-${n}-${o.reservation.reservationId}`, o.reservation);
  };
  await Promise.all(orders.flatMap((o) => [runner(o, 1), runner(o, 2)]));
  const baselineEffects = env.backend.count("refund") + env.backend.count("release") - baseBefore;

  const row: MultiStepRow = {
    scenario: "saga: confirmation fails, 2 plan runners",
    requests: SIZE,
    gate: { effects: refunds + releases, unwanted: refunds + releases - 2 * SIZE },
    baseline: { effects: baselineEffects, unwanted: baselineEffects - 2 * SIZE },
  };
  expect(refunds).toBe(SIZE);
  expect(releases).toBe(SIZE);
  // Both ways end with nothing reserved and nothing charged; only the gate gets there without repeats.
  expect(env.backend.reserved.size).toBe(0);
  expect(env.backend.charged.size).toBe(0);
  expect(baselineEffects).toBeGreaterThan(2 * SIZE);
  return row;
}

/** A destructive call waits for a human; the approved args run once, changed args never. */
export async function previewApprove(env: MultiStepEnv): Promise<MultiStepRow> {
  const SIZE = env.size;
  const gate = createGate({ baseUrl: env.baseUrl, apiKey: env.apiKey });
  const deleted: string[] = [];
  const exec = (repo: string) => () => {
    deleted.push(repo);
    return { deleted: repo };
  };
  const dryRun = (args: unknown) => ({ summary: `deletes ${(args as { repo: string }).repo}`, affected: [(args as { repo: string }).repo] });
  const runs = Array.from({ length: SIZE }, (_, i) => `chaos_preview_${i}_${Date.now()}`);
  const calls = runs.map((runId, i) =>
    gate.call({ tool: "ms_delete_repo", runId, step: "delete", args: { repo: `acme/old-${i}` } }, exec(`acme/old-${i}`), { preview: dryRun, previewTimeoutMs: 120_000 }),
  );
  const pending = await waitFor(
    async () => {
      const list = await env.operator.call(PreviewListSchema, "GET", env.operator.p(env.projectId, "/previews?status=pending&limit=200"));
      const mine = list.previews.filter((p) => runs.includes(p.runId));
      return mine.length === SIZE ? mine : null;
    },
    120_000,
    "every preview in the inbox",
  );
  const beforeApproval = deleted.length;
  for (const p of pending) await env.operator.call(OperatorPreviewSchema, "POST", env.operator.p(env.projectId, `/previews/${p.previewId}/approve`), { note: "chaos: approved" });
  const results = await Promise.all(calls);
  expect(results.every((r) => r.ok)).toBe(true);
  // The agent re-plans after approval and tries other args on the same step: refused (its own preview needed).
  const changed = await Promise.all(
    runs.map((runId, i) => gate.call({ tool: "ms_delete_repo", runId, step: "delete-again", args: { repo: `acme/core-${i}` } }, exec(`acme/core-${i}`), { preview: dryRun, previewTimeoutMs: 200 })),
  );
  expect(changed.every((r) => !r.ok && r.status === "preview_pending")).toBe(true);
  const gateUnwanted = beforeApproval + deleted.filter((repo) => repo.startsWith("acme/core")).length;

  // Without the gate the agent deletes at once (no one saw it), and again with the changed args.
  const baseline: string[] = [];
  const direct = (repo: string) => () => {
    baseline.push(repo);
    return { deleted: repo };
  };
  for (let i = 0; i < SIZE; i++) {
    direct(`acme/old-${i}`)();
    direct(`acme/core-${i}`)();
  }
  const row: MultiStepRow = {
    scenario: "preview: approve, then changed args",
    requests: SIZE,
    gate: { effects: deleted.length, unwanted: gateUnwanted },
    // Every baseline deletion ran before any approval; the changed-args ones were never approved at all.
    baseline: { effects: baseline.length, unwanted: baseline.length },
  };
  expect(beforeApproval).toBe(0);
  expect(deleted.length).toBe(SIZE);
  expect(gateUnwanted).toBe(0);
  return row;
}

/** The accepted answer is lost and the agent asks again: each job starts once. */
export async function lostAccepted(env: MultiStepEnv): Promise<MultiStepRow> {
  const SIZE = env.size;
  const gate = createGate({ baseUrl: env.baseUrl, apiKey: env.apiKey });
  let started = 0;
  const start = () => accepted({ operationId: `op_${++started}` });
  await Promise.all(
    Array.from({ length: SIZE }, async (_, i) => {
      const spec = { tool: "ms_render_export", runId: `chaos_async_${i}_${Date.now()}`, step: "export", args: { month: `2026-${i}` } };
      const first = await gate.call(spec, start);
      // The agent lost that answer (its process restarted) and decides again: the gate replays the operation id.
      const again = await gate.call(spec, start);
      expect(again).toMatchObject({ ok: true, status: "accepted", replayed: true, operationId: (first as { operationId: string }).operationId });
    }),
  );
  const gateStarted = started;
  // Without the gate, each decision starts the job again.
  started = 0;
  for (let i = 0; i < SIZE; i++) {
    start();
    start();
  }
  const baselineStarted = started;
  const row: MultiStepRow = {
    scenario: "async: lost accepted answer, asked again",
    requests: SIZE,
    gate: { effects: gateStarted, unwanted: gateStarted - SIZE },
    baseline: { effects: baselineStarted, unwanted: baselineStarted - SIZE },
  };
  expect(gateStarted).toBe(SIZE);
  return row;
}
