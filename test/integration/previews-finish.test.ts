import { tool } from "ai";
import { beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { OperatorPreviewSchema, PreviewListSchema } from "../../lib/contract/previews";
import type { BeginRequest } from "../../lib/contract/v1";
import { createGate } from "../../lib/sdk";
import { gateTools } from "../../lib/sdk/adapters/ai-sdk";
import { AdminClient } from "../helpers/admin-client";
import { TestClient } from "../helpers/client";
import { PROVIDERS } from "../helpers/databases";
import { createTestProject } from "../helpers/fixtures";
import { OperatorClient, ROOT, createOperator } from "../helpers/operator-client";
import { expectDecision, uniqueRun } from "../helpers/policy-fixtures";
import { sharedServer } from "../helpers/shared-server";
import type { SharedServerInfo } from "../helpers/shared-servers-setup";

/**
 * #37 §2: previews an SDK user can finish. A call under `preview: approve` that timed out waiting is
 * called again once an operator approved: it finds its own preview (one inbox entry) and runs once.
 */
describe.each(PROVIDERS)("%s: previews — the same call finds its own preview", (provider) => {
  // The run's shared server: nothing here restarts it or looks beyond its own project.
  let server: SharedServerInfo;
  let agent: TestClient;
  let operator: OperatorClient;
  let projectId: string;
  let apiKey: string;

  beforeAll(async () => {
    server = await sharedServer(provider);
    ({ projectId, apiKey } = await createTestProject(server.databaseUrl));
    agent = new TestClient(server.baseUrl, apiKey);
    const admin = new AdminClient(server.baseUrl, projectId);
    await admin.put("delete_repo", { preview: "approve" }, "test: a human approves the dry run");
    await admin.put("drop_table", { preview: "required" }, "test: dry run first");
    const root = await OperatorClient.signIn(server.baseUrl, ROOT.email, ROOT.password);
    operator = await createOperator(root, projectId, "operator");
  });

  const previewsOf = async (runId: string) =>
    (await operator.call(PreviewListSchema, "GET", operator.p(projectId, "/previews?limit=200"))).previews.filter((p) => p.runId === runId);

  it("SDK: timed out (preview_pending), called again while pending, approved, called again: one inbox entry, one execution; the card names the key", async () => {
    let deletions = 0;
    let dryRuns = 0;
    const gate = createGate({ baseUrl: server.baseUrl, apiKey });
    const runId = uniqueRun("sdk-timeout");
    const spec = { tool: "delete_repo", runId, step: "delete", args: { repo: "acme/legacy" } };
    const exec = () => ({ deleted: ++deletions });
    const dryRun = () => (dryRuns++, { summary: "deletes acme/legacy", affected: ["acme/legacy"] });

    const first = await gate.call(spec, exec, { preview: dryRun, previewTimeoutMs: 200 });
    expect(first).toMatchObject({ ok: false, status: "preview_pending" });
    const previewId = (first as { previewId: string }).previewId;
    const second = await gate.call(spec, exec, { preview: dryRun, previewTimeoutMs: 200 });
    expect(second).toMatchObject({ ok: false, status: "preview_pending", previewId });
    const inbox = await previewsOf(runId);
    expect(inbox).toHaveLength(1);
    // The card names the API key that asked, not only its id.
    expect(inbox[0]).toMatchObject({ status: "pending", requestedByName: expect.any(String) });
    expect(inbox[0]!.requestedByName).not.toBe(inbox[0]!.requestedBy);

    await operator.call(OperatorPreviewSchema, "POST", operator.p(projectId, `/previews/${previewId}/approve`), { note: "archived repo" });
    const ran = await gate.call(spec, exec, { preview: dryRun, previewTimeoutMs: 200 });
    expect(ran).toMatchObject({ ok: true, status: "executed", value: { deleted: 1 } });
    expect(await gate.call(spec, exec, { preview: dryRun, previewTimeoutMs: 200 })).toMatchObject({ ok: true, status: "replayed" });
    expect(deletions).toBe(1);
    const after = await previewsOf(runId);
    expect(after).toHaveLength(1);
    expect(after[0]).toMatchObject({ previewId, status: "used" });
    expect(dryRuns).toBeGreaterThanOrEqual(1);
  });

  it("SDK: a denied preview answers the same call denied, without a new inbox entry; other args ask anew", async () => {
    let deletions = 0;
    const gate = createGate({ baseUrl: server.baseUrl, apiKey });
    const runId = uniqueRun("sdk-denied");
    const spec = { tool: "delete_repo", runId, step: "delete", args: { repo: "acme/core" } };
    const exec = () => ({ deleted: ++deletions });
    const dryRun = () => ({ summary: "deletes acme/core", affected: ["acme/core"] });
    const pending = await gate.call(spec, exec, { preview: dryRun, previewTimeoutMs: 200 });
    const previewId = (pending as { previewId: string }).previewId;
    await operator.call(OperatorPreviewSchema, "POST", operator.p(projectId, `/previews/${previewId}/deny`), { note: "core repo, never" });
    expect(await gate.call(spec, exec, { preview: dryRun, previewTimeoutMs: 200 })).toMatchObject({ ok: false, status: "preview_denied", previewId });
    expect(await previewsOf(runId)).toHaveLength(1);
    const other = await gate.call({ ...spec, args: { repo: "acme/other" } }, exec, { preview: dryRun, previewTimeoutMs: 200 });
    expect(other).toMatchObject({ ok: false, status: "preview_pending" });
    expect((other as { previewId: string }).previewId).not.toBe(previewId);
    expect(deletions).toBe(0);
  });

  it("AI SDK adapter: the same tool call after a timeout and an approval runs once on the one preview", async () => {
    let deletions = 0;
    const gate = createGate({ baseUrl: server.baseUrl, apiKey });
    const runId = uniqueRun("ai-sdk");
    const tools = gateTools(
      gate,
      {
        delete_repo: tool({
          inputSchema: z.object({ repo: z.string() }),
          execute: async ({ repo }) => ({ deleted: repo, n: ++deletions }),
        }),
      },
      { tools: { delete_repo: { preview: (input) => ({ summary: `deletes ${input.repo}`, affected: [input.repo] }), previewTimeoutMs: 200 } } },
    );
    const execute = (toolCallId: string) => gate.run({ runId }, () => tools.delete_repo.execute!({ repo: "acme/ai" }, { toolCallId, messages: [] }));
    const timedOut = await execute("tc-1");
    expect(JSON.stringify(timedOut)).toMatch(/preview|approv/i);
    expect(deletions).toBe(0);
    const inbox = await previewsOf(runId);
    expect(inbox).toHaveLength(1);
    await operator.call(OperatorPreviewSchema, "POST", operator.p(projectId, `/previews/${inbox[0]!.previewId}/approve`), { note: "ok" });
    expect(await execute("tc-2")).toMatchObject({ deleted: "acme/ai", n: 1 });
    expect(deletions).toBe(1);
    expect(await previewsOf(runId)).toHaveLength(1);
  });

  it("a spent preview token: the same call gets its own answer (replay, like any duplicate); a new execution with it is 409 preview_token_used", async () => {
    const request: BeginRequest = { tool: "drop_table", runId: uniqueRun("spent"), stepId: "drop", args: { table: "orders" } };
    const created = await agent.raw("POST", "/api/v1/calls/preview", { ...request, preview: { summary: "drops orders", affected: ["db.orders"] } });
    const token = ((await created.json()) as { previewToken: string }).previewToken;
    const run = expectDecision(await agent.begin({ ...request, previewToken: token }), "execute");
    // While it runs, the same call with the same token is the same call: in progress, nothing spent twice.
    expect((await agent.begin({ ...request, previewToken: token })).decision).toBe("in_progress");
    await agent.complete(run.callId, { leaseToken: run.leaseToken, outcome: "succeeded", result: { dropped: true } });
    expect(expectDecision(await agent.begin({ ...request, previewToken: token }), "replay")).toMatchObject({ result: { dropped: true } });
    // The token cannot start anything else: another run's call with it is refused.
    const reused = await agent.expectError("POST", "/api/v1/calls/begin", { ...request, runId: uniqueRun("spent-other"), previewToken: token });
    expect([reused.status, reused.body.error.code]).toEqual([409, "preview_token_used"]);
  });
});
