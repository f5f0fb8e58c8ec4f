import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { RunCompensationSchema } from "../../lib/contract/sagas";
import { ToolError, createGate } from "../../lib/sdk";
import { AdminClient } from "../helpers/admin-client";
import { TestClient } from "../helpers/client";
import { PROVIDERS } from "../helpers/databases";
import { type TestProject, createTestProject } from "../helpers/fixtures";
import { OrderBackend, callBackend } from "../helpers/order-backend";
import { uniqueRun } from "../helpers/policy-fixtures";
import { sharedServer } from "../helpers/shared-server";
import type { SharedServerInfo } from "../helpers/shared-servers-setup";
import { waitFor } from "../helpers/storm-scenario";

const CHILD = path.join(import.meta.dirname, "saga-runner-child.ts");


describe.each(PROVIDERS)("%s: sagas — the order saga over HTTP", (provider) => {
  // The run's shared server: nothing here restarts it or looks beyond its own project.
  let server: SharedServerInfo;
  let project: TestProject;
  let client: TestClient;
  const dir = mkdtempSync(path.join(tmpdir(), "idemgate-saga-"));

  beforeAll(async () => {
    server = await sharedServer(provider);
    project = await createTestProject(server.databaseUrl);
    client = new TestClient(server.baseUrl, project.apiKey);
    await new AdminClient(server.baseUrl, project.projectId).put("send_confirmation", { onPermanentFailure: "compensate" }, "test: a failed confirmation undoes the order");
  });

  /** reserve → charge → confirm (fails permanently): the policy aborts the run. */
  async function placeOrder(backend: OrderBackend, runId: string) {
    const gate = createGate({ baseUrl: server.baseUrl, apiKey: project.apiKey, toolRetry: false });
    return gate.run({ runId }, async () => {
      const reserved = await gate.call(
        { tool: "reserve_inventory", step: "reserve", args: { sku: "sku-1", qty: 2 } },
        ({ idempotencyKey }) => callBackend(backend.url, "reserve", idempotencyKey, { sku: "sku-1", qty: 2 }) as Promise<{ reservationId: string }>,
        { compensate: (r) => ({ tool: "release_inventory", args: { reservationId: r.reservationId } }) },
      );
      const charged = await gate.call(
        { tool: "charge_card", step: "charge", args: { amount: 4200 } },
        ({ idempotencyKey }) => callBackend(backend.url, "charge", idempotencyKey, { amount: 4200 }) as Promise<{ chargeId: string }>,
        { compensate: (r) => ({ tool: "refund_charge", args: { chargeId: r.chargeId } }) },
      );
      const confirmed = await gate.call({ tool: "send_confirmation", step: "confirm", args: { to: "a@b.c" } }, () => {
        throw new ToolError("mailbox does not exist", { retryable: false });
      });
      return { reserved, charged, confirmed };
    });
  }

  function startRunner(runId: string, backend: OrderBackend, label: string): { child: ChildProcess; exit: Promise<{ code: number | null; out: string }> } {
    const jobFile = path.join(dir, `${label}.json`);
    writeFileSync(jobFile, JSON.stringify({ baseUrl: server.baseUrl, apiKey: project.apiKey, runId, backendUrl: backend.url }));
    const child = spawn(process.execPath, ["--import", "tsx", CHILD, jobFile], { stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    child.stdout!.on("data", (d) => (out += d));
    child.stderr!.on("data", (d) => (out += d));
    const exit = new Promise<{ code: number | null; out: string }>((resolve) => child.on("exit", (code) => resolve({ code, out })));
    return { child, exit };
  }

  async function plan(runId: string) {
    return RunCompensationSchema.parse(await (await client.raw("GET", `/api/v1/runs/${runId}/compensation`)).json());
  }

  it("the confirmation fails permanently; two runner processes at once refund then release, each exactly once", async () => {
    const backend = new OrderBackend();
    await backend.start();
    try {
      const runId = uniqueRun("saga-two");
      const order = await placeOrder(backend, runId);
      expect(order.confirmed).toMatchObject({ ok: false, status: "failed" });
      expect(backend.reserved.size).toBe(1);
      expect(backend.charged.size).toBe(1);

      const aborted = await plan(runId);
      expect(aborted).toMatchObject({ state: "compensating", abort: { abortedBy: "policy" } });
      expect(aborted.abort!.reason).toContain("send_confirmation failed permanently");
      expect(aborted.steps.map((s) => s.compensation.tool)).toEqual(["refund_charge", "release_inventory"]);

      const [a, b] = [startRunner(runId, backend, `${runId}-a`), startRunner(runId, backend, `${runId}-b`)];
      const [ea, eb] = await Promise.all([a.exit, b.exit]);
      expect(ea, ea.out).toMatchObject({ code: 0 });
      expect(eb, eb.out).toMatchObject({ code: 0 });

      expect(backend.effects.filter((op) => op === "refund" || op === "release")).toEqual(["refund", "release"]);
      expect(backend.count("refund", "hits")).toBe(1);
      expect(backend.count("release", "hits")).toBe(1);
      expect(backend.reserved.size).toBe(0);
      expect(backend.charged.size).toBe(0);
      const done = await plan(runId);
      expect(done.state).toBe("compensated");
      expect(done.steps.map((s) => s.status)).toEqual(["compensated", "compensated"]);
    } finally {
      await backend.stop();
    }
  });

  it("the runner is SIGKILLed mid-plan (refund applied, answer lost); a restarted runner finishes without a second refund", async () => {
    const backend = new OrderBackend();
    await backend.start();
    try {
      const runId = uniqueRun("saga-kill");
      await placeOrder(backend, runId);
      backend.hangNext = "refund";
      const doomed = startRunner(runId, backend, `${runId}-doomed`);
      await waitFor(async () => backend.count("refund") === 1, 60_000, "the refund to reach the backend");
      doomed.child.kill("SIGKILL");
      expect((await doomed.exit).code).toBeNull();

      const restarted = startRunner(runId, backend, `${runId}-restarted`);
      const exit = await restarted.exit;
      expect(exit, exit.out).toMatchObject({ code: 0 });
      expect(exit.out).toContain("done compensated");

      // The restarted runner re-ran the refund under the same key: the backend absorbed it.
      expect(backend.count("refund")).toBe(1);
      expect(backend.count("release")).toBe(1);
      expect(backend.reserved.size).toBe(0);
      expect(backend.charged.size).toBe(0);
      const done = await plan(runId);
      expect(done.state).toBe("compensated");
      expect(done.steps[0]!.attempts).toBe(2);
    } finally {
      await backend.stop();
    }
  });

  it("an agent aborts by hand; compensations run in order only after the abort; a permanent undo failure stops the plan", async () => {
    const backend = new OrderBackend();
    await backend.start();
    try {
      const runId = uniqueRun("saga-agent");
      const gate = createGate({ baseUrl: server.baseUrl, apiKey: project.apiKey, toolRetry: false });
      await gate.run({ runId }, async () => {
        await gate.call({ tool: "reserve_inventory", step: "reserve" }, () => ({ reservationId: "r1" }), { compensate: (r) => ({ tool: "release_inventory", args: r }) });
        await gate.call({ tool: "charge_card", step: "charge" }, () => ({ chargeId: "c1" }), { compensate: (r) => ({ tool: "refund_charge", args: r }) });
      });
      const first = (await plan(runId)).steps[0]!;
      const early = await client.expectError("POST", `/api/v1/runs/${runId}/compensations/${first.callId}/begin`, {});
      expect(early.status).toBe(409);
      expect(early.body.error.code).toBe("invalid_state");

      const outcome = await gate.abort(runId, "the user cancelled", {
        compensators: {
          refund_charge: () => {
            throw new ToolError("charge already disputed", { retryable: false });
          },
          release_inventory: () => ({ ok: true }),
        },
      });
      expect(outcome).toMatchObject({ ok: false, state: "compensation_failed" });
      expect(outcome.plan.steps.map((s) => s.status)).toEqual(["failed", "pending"]);
      expect(outcome.plan.steps[0]!.error).toMatchObject({ message: "charge already disputed", retryable: false });
      expect(outcome.plan.abort).toMatchObject({ abortedBy: "agent", reason: "the user cancelled" });

      // The second step may not jump the failed first one.
      const second = outcome.plan.steps[1]!;
      const skipped = await client.expectError("POST", `/api/v1/runs/${runId}/compensations/${second.callId}/begin`, {});
      expect(skipped.status).toBe(409);
      // A second abort changes nothing.
      expect((await gate.abort(runId, "again")).plan.abort!.reason).toBe("the user cancelled");
    } finally {
      await backend.stop();
    }
  });

  it("bad input is a 400 with issues and aborts nothing", async () => {
    const runId = uniqueRun("saga-bad");
    // A run the project knows (#43: any other run id is 404 before its body is looked at).
    await client.begin({ tool: "reserve_inventory", runId, stepId: "reserve" });
    for (const [path, body] of [
      [`/api/v1/runs/${runId}/abort`, {}],
      [`/api/v1/runs/${runId}/abort`, { reason: "  " }],
      [`/api/v1/runs/${runId}/compensations/call_x/begin`, { waitMs: 99_999 }],
    ] as const) {
      const answer = await client.expectError("POST", path, body);
      expect(answer.status, path).toBe(400);
      expect(answer.body.error.issues?.length).toBeGreaterThan(0);
    }
    expect((await plan(runId)).state).toBe("running");
  });
});
