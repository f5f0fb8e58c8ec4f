import { appendFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { OperatorPreviewSchema, PreviewListSchema } from "../../lib/contract/previews";
import { DEFAULT_POLICY } from "../../lib/core/policy";
import { ToolError, accepted, createGate } from "../../lib/sdk";
import { AdminClient, TEST_ADMIN_TOKEN } from "../helpers/admin-client";
import { type TestDatabase, createTestDatabase } from "../helpers/databases";
import { createTestProject } from "../helpers/fixtures";
import { OPERATOR_ENV, OperatorClient, ROOT, createOperator } from "../helpers/operator-client";
import { OrderBackend, callBackend } from "../helpers/order-backend";
import { type TestServer, startServer } from "../helpers/server";
import { waitFor } from "../helpers/storm-scenario";

const SIZE = process.env.IDEMGATE_CHAOS_SIZE === "full" ? 20 : 4;

/**
 * The multi-step family (#20): each scenario's fault against the gate, and the same agent without
 * it. `wanted` is what the user asked for; `unwanted` counts effects beyond it (a second refund, a
 * job started twice, a deletion nobody approved or of other args than the approved ones).
 */
interface Row {
  scenario: string;
  requests: number;
  gate: { effects: number; unwanted: number };
  baseline: { effects: number; unwanted: number };
}

describe(`chaos, multi-step (${SIZE} per scenario): sagas, previews, async operations`, () => {
  let db: TestDatabase;
  let server: TestServer;
  let backend: OrderBackend;
  let apiKey: string;
  let projectId: string;
  let operator: OperatorClient;
  const rows: Row[] = [];

  beforeAll(async () => {
    db = await createTestDatabase("sqlite");
    ({ projectId, apiKey } = await createTestProject(db.url, "chaos multi-step"));
    server = await startServer(db.url, { ...OPERATOR_ENV, IDEMGATE_ADMIN_TOKEN: TEST_ADMIN_TOKEN });
    const admin = new AdminClient(server.baseUrl, projectId);
    await admin.put("delete_repo", { preview: "approve" }, "chaos: a human approves deletions");
    await admin.put("export_report", { loop: { ...DEFAULT_POLICY.loop, action: "warn" } }, "chaos: polls are not loops");
    operator = await createOperator(await OperatorClient.signIn(server.baseUrl, ROOT.email, ROOT.password), projectId, "operator");
    backend = new OrderBackend();
    await backend.start();
  });

  afterAll(async () => {
    if (rows.length) {
      const table = [
        "",
        "Multi-step family (#20): effects the user wanted vs unwanted ones, through the gate and without it",
        "",
        "| scenario | requests | effects (gate) | unwanted (gate) | effects (no gate) | unwanted (no gate) |",
        "|---|---:|---:|---:|---:|---:|",
        ...rows.map((r) => `| ${r.scenario} | ${r.requests} | ${r.gate.effects} | ${r.gate.unwanted} | ${r.baseline.effects} | ${r.baseline.unwanted} |`),
      ].join("\n");
      console.log(table);
      if (process.env.IDEMGATE_CHAOS_REPORT) appendFileSync(process.env.IDEMGATE_CHAOS_REPORT, `${table}\n`);
    }
    await backend?.stop();
    await server?.stop();
    await db?.drop();
  });

  it("saga: the confirmation fails permanently, two runners undo the order at once — one refund and one release per order", async () => {
    const gate = createGate({ baseUrl: server.baseUrl, apiKey, toolRetry: false });
    const compensators = {
      refund_charge: (args: unknown, ctx: { idempotencyKey: string }) => callBackend(backend.url, "refund", ctx.idempotencyKey, args),
      release_inventory: (args: unknown, ctx: { idempotencyKey: string }) => callBackend(backend.url, "release", ctx.idempotencyKey, args),
    };
    const before = { refund: backend.count("refund"), release: backend.count("release") };
    await Promise.all(
      Array.from({ length: SIZE }, async (_, i) => {
        const runId = `chaos_saga_${i}_${Date.now()}`;
        await gate.run({ runId }, async () => {
          await gate.call({ tool: "reserve_inventory", step: "reserve", args: { sku: `sku-${i}` } }, (ctx) => callBackend(backend.url, "reserve", ctx.idempotencyKey, { sku: `sku-${i}` }), {
            compensate: (r) => ({ tool: "release_inventory", args: r }),
          });
          await gate.call({ tool: "charge_card", step: "charge", args: { amount: 100 + i } }, (ctx) => callBackend(backend.url, "charge", ctx.idempotencyKey, { amount: 100 + i }), {
            compensate: (r) => ({ tool: "refund_charge", args: r }),
          });
          const confirm = await gate.call({ tool: "send_confirmation", step: "confirm", args: { order: i } }, () => {
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
    const refunds = backend.count("refund") - before.refund;
    const releases = backend.count("release") - before.release;

    // Without the gate: the same two runners each walk the undo list; nothing tells them a step is done.
    const orders = await Promise.all(
      Array.from({ length: SIZE }, async (_, i) => {
        const reservation = (await callBackend(backend.url, "reserve", `nogate-r-${i}-${Date.now()}`, { sku: `sku-${i}` })) as { reservationId: string };
        const charge = (await callBackend(backend.url, "charge", `nogate-c-${i}-${Date.now()}`, { amount: 100 + i })) as { chargeId: string };
        return { reservation, charge };
      }),
    );
    const baseBefore = backend.count("refund") + backend.count("release");
    const runner = async (o: (typeof orders)[number], n: number) => {
      await callBackend(backend.url, "refund", `runner-${n}-${o.charge.chargeId}`, o.charge);
      await callBackend(backend.url, "release", `runner-${n}-${o.reservation.reservationId}`, o.reservation);
    };
    await Promise.all(orders.flatMap((o) => [runner(o, 1), runner(o, 2)]));
    const baselineEffects = backend.count("refund") + backend.count("release") - baseBefore;

    rows.push({
      scenario: "saga: confirmation fails, 2 plan runners",
      requests: SIZE,
      gate: { effects: refunds + releases, unwanted: refunds + releases - 2 * SIZE },
      baseline: { effects: baselineEffects, unwanted: baselineEffects - 2 * SIZE },
    });
    expect(refunds).toBe(SIZE);
    expect(releases).toBe(SIZE);
    // Both ways end with nothing reserved and nothing charged; only the gate gets there without repeats.
    expect(backend.reserved.size).toBe(0);
    expect(backend.charged.size).toBe(0);
    expect(baselineEffects).toBeGreaterThan(2 * SIZE);
  });

  it("preview: a destructive call waits for a human; approved args run once, changed args never", async () => {
    const gate = createGate({ baseUrl: server.baseUrl, apiKey });
    const deleted: string[] = [];
    const exec = (repo: string) => () => {
      deleted.push(repo);
      return { deleted: repo };
    };
    const dryRun = (args: unknown) => ({ summary: `deletes ${(args as { repo: string }).repo}`, affected: [(args as { repo: string }).repo] });
    const runs = Array.from({ length: SIZE }, (_, i) => `chaos_preview_${i}_${Date.now()}`);
    let approvedAt = Number.POSITIVE_INFINITY;
    const calls = runs.map((runId, i) =>
      gate.call({ tool: "delete_repo", runId, step: "delete", args: { repo: `acme/old-${i}` } }, exec(`acme/old-${i}`), { preview: dryRun, previewTimeoutMs: 120_000 }),
    );
    const pending = await waitFor(
      async () => {
        const list = await operator.call(PreviewListSchema, "GET", operator.p(projectId, "/previews?status=pending&limit=200"));
        const mine = list.previews.filter((p) => runs.includes(p.runId));
        return mine.length === SIZE ? mine : null;
      },
      120_000,
      "every preview in the inbox",
    );
    const beforeApproval = deleted.length;
    approvedAt = Date.now();
    for (const p of pending) await operator.call(OperatorPreviewSchema, "POST", operator.p(projectId, `/previews/${p.previewId}/approve`), { note: "chaos: approved" });
    const results = await Promise.all(calls);
    expect(results.every((r) => r.ok)).toBe(true);
    // The agent re-plans after approval and tries other args on the same step: refused (its own preview needed).
    const changed = await Promise.all(
      runs.map((runId, i) => gate.call({ tool: "delete_repo", runId, step: "delete-again", args: { repo: `acme/core-${i}` } }, exec(`acme/core-${i}`), { preview: dryRun, previewTimeoutMs: 200 })),
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
    rows.push({
      scenario: "preview: approve, then changed args",
      requests: SIZE,
      gate: { effects: deleted.length, unwanted: gateUnwanted },
      // Every baseline deletion ran before any approval; the changed-args ones were never approved at all.
      baseline: { effects: baseline.length, unwanted: baseline.length },
    });
    expect(approvedAt).toBeLessThan(Number.POSITIVE_INFINITY);
    expect(beforeApproval).toBe(0);
    expect(deleted.length).toBe(SIZE);
    expect(gateUnwanted).toBe(0);
  });

  it("async: the accepted answer is lost and the agent asks again — each job starts once", async () => {
    const gate = createGate({ baseUrl: server.baseUrl, apiKey });
    let started = 0;
    const start = () => accepted({ operationId: `op_${++started}` });
    await Promise.all(
      Array.from({ length: SIZE }, async (_, i) => {
        const spec = { tool: "export_report", runId: `chaos_async_${i}_${Date.now()}`, step: "export", args: { month: `2026-${i}` } };
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
    rows.push({
      scenario: "async: lost accepted answer, asked again",
      requests: SIZE,
      gate: { effects: gateStarted, unwanted: gateStarted - SIZE },
      baseline: { effects: baselineStarted, unwanted: baselineStarted - SIZE },
    });
    expect(gateStarted).toBe(SIZE);
  });
});
