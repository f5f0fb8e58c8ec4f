import { beforeAll, describe, expect, it } from "vitest";
import { AdminClient } from "../helpers/admin-client";
import { createGate } from "../../lib/sdk/gate";
import { TestClient } from "../helpers/client";
import { PROVIDERS } from "../helpers/databases";
import { createTestProject, eventsForCall } from "../helpers/fixtures";
import { OperatorClient, ROOT, agentAsk, agentRead, createOperator } from "../helpers/operator-client";
import { expectDecision, runOnce, sleep, uniqueRun, uniqueTool } from "../helpers/policy-fixtures";
import { sharedServer } from "../helpers/shared-server";
import type { SharedServerInfo } from "../helpers/shared-servers-setup";

/**
 * Human-approved resends over real HTTP: an agent asks, an operator approves, the agent's
 * single-use token runs the call once more under the next key generation — and every way of
 * bending that (reuse, expiry, another key, other args, unknown token) is refused with its code.
 */
describe.each(PROVIDERS)("%s: human-approved resends", (provider) => {
  // The run's shared server: nothing here restarts it or looks beyond its own projects.
  let server: SharedServerInfo;
  let agent: TestClient;
  let approver: OperatorClient;
  let policies: AdminClient;
  let projectId: string;
  let apiKey: string;

  beforeAll(async () => {
    server = await sharedServer(provider);
    const project = await createTestProject(server.databaseUrl);
    projectId = project.projectId;
    apiKey = project.apiKey;
    agent = new TestClient(server.baseUrl, project.apiKey);
    policies = new AdminClient(server.baseUrl, projectId);
    const root = await OperatorClient.signIn(server.baseUrl, ROOT.email, ROOT.password);
    approver = await createOperator(root, projectId, "operator", "approver");
  });

  /** A completed call that sent one email, and an approved resend for it whose token the agent holds. */
  async function approvedResend(label: string, ttlSeconds?: number) {
    const request = { tool: uniqueTool(label), runId: uniqueRun(label), stepId: "send-confirmation", args: { orderId: 42 } };
    const first = await runOnce(agent, request, { messageId: "m-1" });
    const asked = await agentAsk(agent, first.callId);
    await approver.approve(projectId, asked.requestId, "customer confirmed", ttlSeconds);
    const read = await agentRead(agent, asked.requestId);
    expect(read.status).toBe("approved");
    return { request, first, requestId: asked.requestId, token: read.bypassToken! };
  }

  /** One confirmation email per order, whatever run sends it: begins from other runs share the key. */
  async function perOrderTool(label: string): Promise<string> {
    const tool = uniqueTool(label);
    await policies.put(tool, { keyStrategy: "scope" });
    return tool;
  }

  it("asked, approved, used once: runs under the next key generation, and later begins replay it", async () => {
    const tool = await perOrderTool("email");
    const request = { tool, runId: uniqueRun("flow"), scope: "order:7", args: { orderId: 7 } };
    const first = await runOnce(agent, request, { messageId: "m-1" });
    expectDecision(await agent.begin({ ...request, runId: uniqueRun("other") }), "replay");

    const asked = await agentAsk(agent, first.callId, "the customer says no email arrived");
    expect(asked).toMatchObject({ status: "pending", callId: first.callId, tokenIssued: false });
    expect((await agentRead(agent, asked.requestId)).bypassToken).toBeUndefined();

    const approved = await approver.approve(projectId, asked.requestId, "checked the mail log");
    expect(approved).toMatchObject({ status: "approved", note: "checked the mail log", decidedBy: { label: approver.email } });

    const read = await agentRead(agent, asked.requestId);
    expect(read).toMatchObject({ status: "approved", tokenIssued: true });
    expect(read.bypassToken).toMatch(/^igbt_/);
    const again = await agentRead(agent, asked.requestId);
    expect(again.bypassToken, "the token is shown once").toBeUndefined();
    expect(again.tokenIssued).toBe(true);

    const resent = expectDecision(await agent.begin({ ...request, bypassToken: read.bypassToken }), "execute");
    expect(resent.key).toBe(`${first.key}:g2`);
    expect(resent.callId).not.toBe(first.callId);
    expect(resent.attempt).toBe(1);
    await agent.complete(resent.callId, { leaseToken: resent.leaseToken, outcome: "succeeded", result: { messageId: "m-2" } });

    const later = expectDecision(await agent.begin({ ...request, runId: uniqueRun("later") }), "replay");
    expect(later).toMatchObject({ callId: resent.callId, key: `${first.key}:g2`, result: { messageId: "m-2" } });
    // The first generation's outcome stays.
    expect(await agent.status(first.callId)).toMatchObject({ status: "succeeded", result: { messageId: "m-1" }, key: first.key });
    expect(await agentRead(agent, asked.requestId)).toMatchObject({ status: "used" });
    expect((await approver.getResend(projectId, asked.requestId)).usedCallId).toBe(resent.callId);
  });

  it("a used token is refused the second time (409 bypass_token_used), and nothing runs again", async () => {
    const tool = await perOrderTool("reuse");
    const request = { tool, runId: uniqueRun("reuse"), scope: "order:9" };
    const first = await runOnce(agent, request);
    const asked = await agentAsk(agent, first.callId);
    await approver.approve(projectId, asked.requestId);
    const token = (await agentRead(agent, asked.requestId)).bypassToken!;
    const resent = expectDecision(await agent.begin({ ...request, bypassToken: token }), "execute");
    await agent.complete(resent.callId, { leaseToken: resent.leaseToken, outcome: "succeeded", result: { n: 2 } });
    const reused = await agent.expectError("POST", "/api/v1/calls/begin", { ...request, bypassToken: token });
    expect(reused).toMatchObject({ status: 409, body: { error: { code: "bypass_token_used", retryable: false } } });
    expect(expectDecision(await agent.begin({ ...request, runId: uniqueRun("after") }), "replay")).toMatchObject({ callId: resent.callId, result: { n: 2 } });
  });

  it("a token is valid for its key and arguments only (403 bypass_token_mismatch)", async () => {
    const { request, token } = await approvedResend("bound");
    const otherKey = await agent.expectError("POST", "/api/v1/calls/begin", { ...request, stepId: "another-step", bypassToken: token });
    expect(otherKey).toMatchObject({ status: 403, body: { error: { code: "bypass_token_mismatch" } } });
    const otherArgs = await agent.expectError("POST", "/api/v1/calls/begin", { ...request, args: { orderId: 43 }, bypassToken: token });
    expect(otherArgs).toMatchObject({ status: 403, body: { error: { code: "bypass_token_mismatch" } } });
    // Refusals do not burn the token: the right call can still use it.
    expectDecision(await agent.begin({ ...request, bypassToken: token }), "execute");
  });

  it("an expired token is refused (410 bypass_token_expired)", async () => {
    const { request, token } = await approvedResend("expiry", 1);
    await sleep(1_300);
    const expired = await agent.expectError("POST", "/api/v1/calls/begin", { ...request, bypassToken: token });
    expect(expired).toMatchObject({ status: 410, body: { error: { code: "bypass_token_expired" } } });
  });

  it("an unknown token is refused (403 bypass_token_invalid)", async () => {
    const request = { tool: uniqueTool("unknown"), runId: uniqueRun("unknown"), stepId: "s" };
    await runOnce(agent, request);
    const unknown = await agent.expectError("POST", "/api/v1/calls/begin", { ...request, bypassToken: "igbt_not-a-real-token" });
    expect(unknown).toMatchObject({ status: 403, body: { error: { code: "bypass_token_invalid" } } });
  });

  it("a begin that asks for a bypass without a token answers approval_required, once per asker", async () => {
    const request = { tool: uniqueTool("ask"), runId: uniqueRun("ask"), stepId: "refund", args: { amount: 5 } };
    const first = await runOnce(agent, request);
    const asked = expectDecision(await agent.begin({ ...request, bypass: { reason: "refund failed at the bank" } }), "approval_required");
    expect(asked.requestId).toMatch(/^rr_/);
    const askedAgain = expectDecision(await agent.begin({ ...request, bypass: { reason: "still failing" } }), "approval_required");
    expect(askedAgain.requestId).toBe(asked.requestId);
    const pending = (await approver.listResends(projectId, "pending")).requests.find((r) => r.requestId === asked.requestId);
    expect(pending).toMatchObject({ callId: first.callId, reason: "refund failed at the bank", args: { amount: 5 } });

    await approver.approve(projectId, asked.requestId);
    const { bypassToken } = await agentRead(agent, asked.requestId);
    expect(expectDecision(await agent.begin({ ...request, bypassToken }), "execute").key).toBe(`${first.key}:g2`);
  });

  it("the SDK over HTTP: a call with `bypass` is approval_required until approved, then the same call runs once under the next generation", async () => {
    const gate = createGate({ baseUrl: server.baseUrl, apiKey, waitMs: 0 });
    const spec = { tool: uniqueTool("sdk_resend"), runId: uniqueRun("sdk"), step: "send-invoice", args: { invoice: 12 } };
    // One step asked for six times: the loop detector would rightly block the run; not what is tested here.
    await policies.put(spec.tool, { loop: { enabled: false } });
    const keys: string[] = [];
    const send = (bypass?: { reason: string }) => gate.call({ ...spec, ...(bypass ? { bypass } : {}) }, ({ idempotencyKey }) => (keys.push(idempotencyKey), { sent: keys.length }));
    expect(await send()).toMatchObject({ status: "executed", value: { sent: 1 } });
    const asked = await send({ reason: "the invoice bounced" });
    expect(asked.status).toBe("approval_required");
    const requestId = (asked as { requestId: string }).requestId;
    expect(await send({ reason: "the invoice bounced" })).toMatchObject({ status: "approval_required", requestId });
    expect(keys).toHaveLength(1);

    await approver.approve(projectId, requestId, "new address confirmed");
    expect(await send({ reason: "the invoice bounced" })).toMatchObject({ status: "executed", value: { sent: 2 } });
    expect(keys).toEqual([keys[0], `${keys[0]}:g2`]);
    expect(await send()).toMatchObject({ status: "replayed", value: { sent: 2 } });
    expect(keys).toHaveLength(2);
  });

  it("bypass: never cannot be asked for or approved; bypass: allow runs without approval", async () => {
    const never = uniqueTool("never");
    await policies.put(never, { bypass: "never" });
    const neverRequest = { tool: never, runId: uniqueRun("never"), stepId: "s" };
    const neverCall = await runOnce(agent, neverRequest);
    const ask = await agent.expectError("POST", `/api/v1/calls/${neverCall.callId}/resend`, { reason: "please" });
    expect(ask).toMatchObject({ status: 403, body: { error: { code: "bypass_forbidden" } } });
    const viaBegin = await agent.expectError("POST", "/api/v1/calls/begin", { ...neverRequest, bypass: { reason: "please" } });
    expect(viaBegin).toMatchObject({ status: 403, body: { error: { code: "bypass_forbidden" } } });

    // A request filed while the tool allowed it cannot be approved once the policy says never.
    const later = uniqueTool("later_never");
    const laterCall = await runOnce(agent, { tool: later, runId: uniqueRun("ln"), stepId: "s" });
    const pending = await agentAsk(agent, laterCall.callId);
    await policies.put(later, { bypass: "never" });
    const refused = await approver.expectError("POST", approver.p(projectId, `/resend-requests/${pending.requestId}/approve`), { note: "ok" });
    expect(refused).toMatchObject({ status: 403, body: { error: { code: "bypass_forbidden" } } });

    const allow = uniqueTool("allow");
    await policies.put(allow, { bypass: "allow" });
    const request = { tool: allow, runId: uniqueRun("allow"), stepId: "s" };
    const first = await runOnce(agent, request);
    const direct = expectDecision(await agent.begin({ ...request, bypass: { reason: "retry the webhook" } }), "execute");
    expect(direct.key).toBe(`${first.key}:g2`);
  });

  it("a double-clicked approval yields one approval, one token and one execution", async () => {
    const request = { tool: uniqueTool("double"), runId: uniqueRun("double"), stepId: "charge", args: { amount: 100 } };
    const first = await runOnce(agent, request);
    const asked = await agentAsk(agent, first.callId);
    const clicks = await Promise.all([0, 1].map(() => approver.raw("POST", approver.p(projectId, `/resend-requests/${asked.requestId}/approve`), { note: "ok" })));
    expect(clicks.map((r) => r.status).sort()).toEqual([200, 409]);
    const loser = clicks.find((r) => r.status === 409)!;
    expect(((await loser.json()) as { error: { code: string } }).error.code).toBe("already_decided");

    const reads = await Promise.all([0, 1, 2].map(() => agentRead(agent, asked.requestId)));
    const tokens = reads.map((r) => r.bypassToken).filter(Boolean);
    expect(tokens).toHaveLength(1);

    const begins = await Promise.all([0, 1].map(() => agent.raw("POST", "/api/v1/calls/begin", { ...request, bypassToken: tokens[0] })));
    const answers = await Promise.all(begins.map(async (r) => ({ status: r.status, body: (await r.json()) as Record<string, unknown> })));
    const executed = answers.filter((a) => a.status === 200 && a.body.decision === "execute");
    expect(executed, JSON.stringify(answers)).toHaveLength(1);
    expect(answers.find((a) => a.status !== 200)?.body).toMatchObject({ error: { code: "bypass_token_used" } });
    const events = await eventsForCall(server.databaseUrl, projectId, String(executed[0]!.body.callId));
    expect(events.filter((e) => e.type === "begin" && e.decision === "execute")).toHaveLength(1);
  });

  it("an operator's own request needs another operator; viewers and agent keys cannot approve", async () => {
    const root = await OperatorClient.signIn(server.baseUrl, ROOT.email, ROOT.password);
    const viewer = await createOperator(root, projectId, "viewer");
    const call = await runOnce(agent, { tool: uniqueTool("own"), runId: uniqueRun("own"), stepId: "s" });
    const own = await approver.requestResend(projectId, call.callId);
    const path = approver.p(projectId, `/resend-requests/${own.requestId}/approve`);

    expect(await approver.expectError("POST", path, { note: "mine" })).toMatchObject({ status: 403, body: { error: { code: "self_approval" } } });
    expect(await viewer.expectError("POST", path, { note: "ok" })).toMatchObject({ status: 403, body: { error: { code: "forbidden" } } });
    const withAgentKey = await agent.expectError("POST", path, { note: "ok" }, { origin: server.baseUrl });
    expect(withAgentKey).toMatchObject({ status: 401, body: { error: { code: "unauthorized" } } });
    expect((await root.approve(projectId, own.requestId, "second pair of eyes")).status).toBe("approved");
  });

  it("every request, decision and token use is in the audit log, with who and from where", async () => {
    const { request, requestId, token } = await approvedResend("audit");
    await agent.begin({ ...request, bypassToken: token });
    await agent.expectError("POST", "/api/v1/calls/begin", { ...request, bypassToken: token });
    const entries = (await approver.audit(projectId)).entries.filter((e) => e.target.id === requestId);
    expect(entries.map((e) => e.action).reverse()).toEqual([
      "resend.requested",
      "resend.approved",
      "resend.token_issued",
      "resend.token_used",
      "resend.token_refused",
    ]);
    for (const entry of entries) {
      expect(entry.ip, entry.action).toBeTruthy();
      expect(entry.userAgent, entry.action).toBeTruthy();
    }
    expect(entries.find((e) => e.action === "resend.approved")?.actor).toMatchObject({ type: "user", label: approver.email });
    expect(entries.find((e) => e.action === "resend.token_used")?.actor).toMatchObject({ type: "agent" });
  });
});
