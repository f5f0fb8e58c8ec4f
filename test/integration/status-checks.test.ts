import { beforeAll, describe, expect, it } from "vitest";
import { CallListSchema } from "../../lib/contract/calls";
import { OperatorQueueSchema } from "../../lib/contract/operator-queue";
import { type BeginRequest, CallStatusSchema } from "../../lib/contract/v1";
import { type CheckOutcome, createGate } from "../../lib/sdk";
import { AdminClient } from "../helpers/admin-client";
import { TestClient } from "../helpers/client";
import { PROVIDERS } from "../helpers/databases";
import { type TestProject, createTestProject, eventsForCall } from "../helpers/fixtures";
import { OperatorClient, ROOT, createOperator } from "../helpers/operator-client";
import { expectDecision, uniqueRun } from "../helpers/policy-fixtures";
import { sharedServer } from "../helpers/shared-server";
import type { SharedServerInfo } from "../helpers/shared-servers-setup";

const TOOL = "submit_payout";

/** A payout service: effects by idempotency key, and a lookup by key (what a checker asks). */
class Payouts {
  readonly byKey = new Map<string, { payoutId: string }>();
  effects = 0;
  submit(key: string): { payoutId: string } {
    const found = this.byKey.get(key);
    if (found) return found;
    this.effects++;
    const payout = { payoutId: `po_${this.effects}` };
    this.byKey.set(key, payout);
    return payout;
  }
  check(key: string): CheckOutcome<{ payoutId: string }> {
    const found = this.byKey.get(key);
    return found ? { status: "found", result: found } : { status: "not_found" };
  }
}

describe.each(PROVIDERS)("%s: status checks resolve verify without a human", (provider) => {
  // The run's shared server: nothing here restarts it or looks beyond its own projects.
  let server: SharedServerInfo;
  let project: TestProject;
  let client: TestClient;
  let operator: OperatorClient;

  beforeAll(async () => {
    server = await sharedServer(provider);
    project = await createTestProject(server.databaseUrl);
    client = new TestClient(server.baseUrl, project.apiKey);
    operator = await createOperator(await OperatorClient.signIn(server.baseUrl, ROOT.email, ROOT.password), project.projectId, "operator");
    await new AdminClient(server.baseUrl, project.projectId).put(TOOL, { effect: "async", leaseSeconds: 1 }, "test: short leases, verify on expiry");
  });

  /** Attempt 1 runs the payout and its answer is lost: the gate never hears of it. */
  async function lostAttempt(payouts: Payouts, request: BeginRequest) {
    const first = expectDecision(await client.begin(request), "execute");
    payouts.submit(first.key);
    return first;
  }

  it("with a checker: the next attempt finds the payout, completes with it and replays — one effect", async () => {
    const payouts = new Payouts();
    const runId = uniqueRun("found");
    const request: BeginRequest = { tool: TOOL, runId, stepId: "payout", args: { amount: 100 } };
    const first = await lostAttempt(payouts, request);

    const gate = createGate({ baseUrl: server.baseUrl, apiKey: project.apiKey });
    const submit = gate.tool(TOOL, {
      exec: (_args: { amount: number }, ctx) => payouts.submit(ctx.idempotencyKey),
      check: (key) => payouts.check(key),
    });
    const result = await submit({ amount: 100 }, { runId, step: "payout" });
    expect(result).toMatchObject({ ok: true, status: "verified", value: { payoutId: "po_1" } });
    expect(payouts.effects).toBe(1);
    expect(await submit({ amount: 100 }, { runId, step: "payout" })).toMatchObject({ ok: true, status: "replayed", value: { payoutId: "po_1" } });
    expect(payouts.effects).toBe(1);

    const events = await eventsForCall(server.databaseUrl, project.projectId, first.callId);
    const complete = events.find((e) => e.type === "complete");
    expect(complete).toMatchObject({ decision: "succeeded" });
    expect(JSON.parse(complete!.detail!)).toEqual({ check: "found" });
    expect(events.some((e) => e.type === "begin" && e.decision === "verify")).toBe(true);
  });

  it("not_found: the tool runs under the same key; unknown: nothing runs and the call waits for an operator", async () => {
    const payouts = new Payouts();
    const gate = createGate({ baseUrl: server.baseUrl, apiKey: project.apiKey });
    const runId = uniqueRun("not-found");
    // Attempt 1 claimed and vanished before the payout was sent.
    const first = expectDecision(await client.begin({ tool: TOOL, runId, stepId: "payout", args: { amount: 5 } }), "execute");
    const submit = gate.tool(TOOL, { exec: (_a: { amount: number }, ctx) => payouts.submit(ctx.idempotencyKey), check: (key) => payouts.check(key) });
    expect(await submit({ amount: 5 }, { runId, step: "payout" })).toMatchObject({ ok: true, status: "executed", value: { payoutId: "po_1" } });
    expect(payouts.byKey.has(first.key)).toBe(true);
    const detail = (await eventsForCall(server.databaseUrl, project.projectId, first.callId)).find((e) => e.type === "complete")!.detail;
    expect(JSON.parse(detail!)).toEqual({ check: "not_found" });

    const unknownRun = uniqueRun("unknown");
    const vanished = expectDecision(await client.begin({ tool: TOOL, runId: unknownRun, stepId: "payout", args: { amount: 7 } }), "execute");
    let ran = 0;
    const blind = gate.tool(TOOL, { exec: () => ++ran, check: () => ({ status: "unknown" as const, reason: "the payout API is down" }) });
    expect(await blind({ amount: 7 }, { runId: unknownRun, step: "payout" })).toMatchObject({ ok: false, status: "unknown_outcome", reason: "the payout API is down" });
    expect(ran).toBe(0);
    expect((await client.status(vanished.callId)).status).toBe("in_progress");

    // The unknown is on the ledger and the call is in the operators' queue (and the calls filter finds it).
    const check = (await eventsForCall(server.databaseUrl, project.projectId, vanished.callId)).find((e) => e.type === "check");
    expect(check).toMatchObject({ decision: "unknown" });
    expect(JSON.parse(check!.detail!)).toEqual({ reason: "the payout API is down" });
    const queue = () => operator.call(OperatorQueueSchema, "GET", operator.p(project.projectId, "/queue"));
    expect((await queue()).uncheckedCalls.find((c) => c.callId === vanished.callId)).toMatchObject({ tool: TOOL, runId: unknownRun, reason: "the payout API is down" });
    const filtered = await operator.call(CallListSchema, "GET", operator.p(project.projectId, "/calls?decision=check_unknown"));
    expect(filtered.calls.map((c) => c.callId)).toContain(vanished.callId);
    // A made-up lease token records nothing.
    const bogus = await fetch(`${server.baseUrl}/api/v1/calls/${vanished.callId}/check`, {
      method: "POST",
      headers: { authorization: `Bearer ${project.apiKey}`, "content-type": "application/json" },
      body: JSON.stringify({ leaseToken: "lt_made_up", outcome: "unknown" }),
    });
    expect(bogus.status).toBe(409);

    // An operator resolves it with what they found: it leaves the queue and counts as settled by hand.
    const before = (await queue()).verify;
    await operator.call(CallStatusSchema, "POST", operator.p(project.projectId, `/calls/${vanished.callId}/resolve`), {
      outcome: "succeeded",
      result: { payoutId: "po_manual" },
      note: "found in the payout dashboard",
    });
    const after = await queue();
    expect(after.uncheckedCalls.some((c) => c.callId === vanished.callId)).toBe(false);
    expect(after.verify.byHand).toBe(before.byHand + 1);
    expect(after.verify).toMatchObject({ found: expect.any(Number), notFound: expect.any(Number) });
    expect(after.verify.found + after.verify.notFound).toBeGreaterThanOrEqual(2);
    expect(after.verify.unknown).toBeGreaterThanOrEqual(1);
  });

  it("without a checker it is verify, as before", async () => {
    const payouts = new Payouts();
    const request: BeginRequest = { tool: TOOL, runId: uniqueRun("plain"), stepId: "payout", args: { amount: 1 } };
    const first = await lostAttempt(payouts, request);
    let answer = await client.begin(request);
    for (let i = 0; i < 600 && answer.decision === "in_progress"; i++) {
      await new Promise((r) => setTimeout(r, 50));
      answer = await client.begin(request);
    }
    expect(expectDecision(answer, "verify")).toMatchObject({ callId: first.callId, key: first.key, attempt: 2 });
  });
});
