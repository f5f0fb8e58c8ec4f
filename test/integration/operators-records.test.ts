import { beforeAll, describe, expect, it } from "vitest";
import { ApiKeySchema, MemberListSchema, MemberSchema } from "../../lib/contract/operator";
import { CallStatusSchema } from "../../lib/contract/v1";
import { AdminClient } from "../helpers/admin-client";
import { TestClient } from "../helpers/client";
import { PROVIDERS } from "../helpers/databases";
import { createTestProject, eventsForCall } from "../helpers/fixtures";
import { OperatorClient, ROOT, agentAsk, agentRead, createOperator } from "../helpers/operator-client";
import { expectDecision, runOnce, sleep, uniqueRun, uniqueTool } from "../helpers/policy-fixtures";
import { sharedServer } from "../helpers/shared-server";
import type { SharedServerInfo } from "../helpers/shared-servers-setup";

/** An operator's manual actions on records, and an admin's API keys and members, over real HTTP. */
describe.each(PROVIDERS)("%s: operator actions", (provider) => {
  // The run's shared server: nothing here restarts it or looks beyond its own projects.
  let server: SharedServerInfo;
  let agent: TestClient;
  let policies: AdminClient;
  let root: OperatorClient;
  let operator: OperatorClient;
  let projectId: string;

  beforeAll(async () => {
    server = await sharedServer(provider);
    const project = await createTestProject(server.databaseUrl);
    projectId = project.projectId;
    agent = new TestClient(server.baseUrl, project.apiKey);
    policies = new AdminClient(server.baseUrl, projectId);
    root = await OperatorClient.signIn(server.baseUrl, ROOT.email, ROOT.password);
    operator = await createOperator(root, projectId, "operator");
  });

  const callPath = (callId: string, action = "") => operator.p(projectId, `/calls/${callId}${action}`);

  it("evict: the next begin executes afresh under the same key and call; the reason is audited", async () => {
    const request = { tool: uniqueTool("evict"), runId: uniqueRun("evict"), stepId: "s", args: { a: 1 } };
    const first = await runOnce(agent, request, { cached: "wrong" });
    const evicted = await operator.call(CallStatusSchema, "POST", callPath(first.callId, "/evict"), { reason: "cached a bad result" });
    expect(evicted).toMatchObject({ status: "released", callId: first.callId });
    const again = expectDecision(await agent.begin(request), "execute");
    expect(again).toMatchObject({ callId: first.callId, key: first.key, attempt: 2 });

    const entry = (await operator.audit(projectId)).entries.find((e) => e.action === "record.evicted" && e.target.id === first.callId);
    expect(entry).toMatchObject({ actor: { type: "user", label: operator.email }, detail: { reason: "cached a bad result", previousState: "succeeded" } });
    expect((await eventsForCall(server.databaseUrl, projectId, first.callId)).map((e) => `${e.type}:${e.decision}`)).toContain("operator:evicted");
  });

  it("evict refuses a running attempt and an older generation of a resent key", async () => {
    const running = expectDecision(await agent.begin({ tool: uniqueTool("running"), runId: uniqueRun("r"), stepId: "s" }), "execute");
    const refused = await operator.expectError("POST", callPath(running.callId, "/evict"), { reason: "x" });
    expect(refused).toMatchObject({ status: 409, body: { error: { code: "invalid_state" } } });

    const request = { tool: uniqueTool("gen"), runId: uniqueRun("gen"), stepId: "s" };
    const first = await runOnce(agent, request);
    const asked = await agentAsk(agent, first.callId);
    await root.approve(projectId, asked.requestId);
    const { bypassToken } = await agentRead(agent, asked.requestId);
    await runOnce(agent, { ...request, bypassToken });
    const older = await operator.expectError("POST", callPath(first.callId, "/evict"), { reason: "x" });
    expect(older).toMatchObject({ status: 409, body: { error: { code: "invalid_state" } } });
  });

  it("resolve a verify case with the outcome found downstream: later begins replay it", async () => {
    const tool = uniqueTool("provision");
    await policies.put(tool, { effect: "async", leaseSeconds: 1 });
    const request = { tool, runId: uniqueRun("verify"), stepId: "vm" };
    expectDecision(await agent.begin(request), "execute");
    await sleep(1_200);
    const verify = expectDecision(await agent.begin(request), "verify");
    const resolved = await operator.call(CallStatusSchema, "POST", callPath(verify.callId, "/resolve"), {
      outcome: "succeeded",
      result: { vmId: "vm-7" },
      note: "the VM exists in the console",
    });
    expect(resolved).toMatchObject({ status: "succeeded", result: { vmId: "vm-7" } });
    expect(expectDecision(await agent.begin(request), "replay")).toMatchObject({ result: { vmId: "vm-7" } });
    // The verify attempt reporting late is answered with the resolved record, not a second outcome.
    const late = await agent.complete(verify.callId, { leaseToken: verify.leaseToken, outcome: "succeeded", result: { vmId: "other" } });
    expect(late.result).toEqual({ vmId: "vm-7" });
  });

  it("resolve a lease_lost case as failed; a completed call cannot be resolved", async () => {
    const tool = uniqueTool("charge");
    await policies.put(tool, { leaseSeconds: 1 });
    const request = { tool, runId: uniqueRun("lost"), stepId: "pay" };
    const first = expectDecision(await agent.begin(request), "execute");
    await sleep(1_200);
    const second = expectDecision(await agent.begin(request), "execute");
    const lost = await agent.expectError("POST", `/api/v1/calls/${first.callId}/complete`, { leaseToken: first.leaseToken, outcome: "succeeded" });
    expect(lost.status).toBe(409);
    const resolved = await operator.call(CallStatusSchema, "POST", callPath(second.callId, "/resolve"), {
      outcome: "failed",
      error: { message: "card declined downstream" },
      note: "checked the PSP dashboard",
    });
    expect(resolved).toMatchObject({ status: "failed", error: { message: "card declined downstream", retryable: false } });
    expect(expectDecision(await agent.begin(request), "replay")).toMatchObject({ status: "failed" });
    const again = await operator.expectError("POST", callPath(second.callId, "/resolve"), { outcome: "succeeded", note: "x" });
    expect(again).toMatchObject({ status: 409, body: { error: { code: "invalid_state" } } });
    const audit = (await operator.audit(projectId)).entries.find((e) => e.action === "record.resolved" && e.target.id === second.callId);
    expect(audit?.detail).toMatchObject({ outcome: "failed", note: "checked the PSP dashboard", previousState: "in_progress" });
  });

  it("API keys: created and shown once, listed without the key, revoked at once, all audited", async () => {
    const created = await root.createApiKey(projectId, "billing agent");
    expect(created.key).toMatch(/^ig_/);
    const newAgent = new TestClient(server.baseUrl, created.key);
    await runOnce(newAgent, { tool: uniqueTool("k"), runId: uniqueRun("k"), stepId: "s" });
    await sleep(100);
    const listed = (await root.apiKeys(projectId)).keys.find((k) => k.id === created.id)!;
    expect(listed).toMatchObject({ name: "billing agent", prefix: created.key.slice(0, 10), revokedAt: null });
    expect(listed).not.toHaveProperty("key");
    expect(listed.lastUsedAt).not.toBeNull();

    const revoked = await root.call(ApiKeySchema, "POST", root.p(projectId, `/api-keys/${created.id}/revoke`));
    expect(revoked.revokedAt).not.toBeNull();
    expect((await newAgent.expectError("POST", "/api/v1/calls/begin", { tool: "t", runId: "r", stepId: "s" })).status).toBe(401);
    expect((await root.expectError("POST", root.p(projectId, `/api-keys/${created.id}/revoke`))).status).toBe(409);
    const actions = (await root.audit(projectId)).entries.filter((e) => e.target.id === created.id).map((e) => e.action);
    expect(actions.sort()).toEqual(["api_key.created", "api_key.revoked"]);
  });

  it("members: add an existing account, change its role, remove it; admins cannot lock themselves out", async () => {
    const other = await createTestProject(server.databaseUrl, "other");
    const colleague = await createOperator(root, other.projectId, "viewer", "colleague");
    const added = await root.addMember(projectId, { email: colleague.email, role: "viewer" });
    expect(added).toMatchObject({ email: colleague.email, role: "viewer" });
    expect((await root.expectError("POST", root.p(projectId, "/members"), { email: colleague.email, role: "viewer" })).status).toBe(409);
    const withPassword = await root.expectError("POST", root.p(projectId, "/members"), { email: colleague.email, role: "viewer", password: "new-password-1" });
    expect(withPassword).toMatchObject({ status: 409, body: { error: { code: "already_exists" } } });

    await root.call(MemberSchema, "PUT", root.p(projectId, `/members/${added.userId}`), { role: "operator" });
    const call = await runOnce(agent, { tool: uniqueTool("m"), runId: uniqueRun("m"), stepId: "s" });
    const asked = await agentAsk(agent, call.callId);
    expect((await colleague.approve(projectId, asked.requestId)).status).toBe("approved");

    await root.call(MemberSchema, "DELETE", root.p(projectId, `/members/${added.userId}`));
    expect((await colleague.expectError("GET", colleague.p(projectId, "/resend-requests"))).status).toBe(404);
    expect((await root.call(MemberListSchema, "GET", root.p(projectId, "/members"))).members.map((m) => m.email)).not.toContain(colleague.email);

    const admin = await createOperator(root, projectId, "admin", "selfish");
    const me = (await admin.call(MemberListSchema, "GET", admin.p(projectId, "/members"))).members.find((m) => m.email === admin.email)!;
    expect((await admin.expectError("PUT", admin.p(projectId, `/members/${me.userId}`), { role: "viewer" })).status).toBe(409);
    expect((await admin.expectError("DELETE", admin.p(projectId, `/members/${me.userId}`))).status).toBe(409);
    const actions = (await root.audit(projectId)).entries.filter((e) => e.target.id === added.userId).map((e) => e.action);
    expect(actions).toEqual(expect.arrayContaining(["member.added", "member.role_changed", "member.removed"]));
  });
});
