import { beforeAll, describe, expect, it } from "vitest";
import { OperatorPreviewSchema, PreviewListSchema, PreviewSchema } from "../../lib/contract/previews";
import type { BeginRequest } from "../../lib/contract/v1";
import { createGate } from "../../lib/sdk";
import { AdminClient } from "../helpers/admin-client";
import { TestClient } from "../helpers/client";
import { PROVIDERS } from "../helpers/databases";
import { createTestProject } from "../helpers/fixtures";
import { OperatorClient, ROOT, createOperator } from "../helpers/operator-client";
import { expectDecision, uniqueRun } from "../helpers/policy-fixtures";
import { dumpTables } from "../helpers/policy-fixtures";
import { sharedServer } from "../helpers/shared-server";
import type { SharedServerInfo } from "../helpers/shared-servers-setup";

/** Preview tokens for destructive tools, over real HTTP: `required` (dry run first) and `approve` (and a human). */
describe.each(PROVIDERS)("%s: previews", (provider) => {
  // The run's shared server: nothing here restarts it or looks beyond its own projects.
  let server: SharedServerInfo;
  let agent: TestClient;
  let operator: OperatorClient;
  let projectId: string;
  let apiKey: string;

  beforeAll(async () => {
    server = await sharedServer(provider);
    const project = await createTestProject(server.databaseUrl);
    ({ projectId, apiKey } = project);
    agent = new TestClient(server.baseUrl, apiKey);
    const admin = new AdminClient(server.baseUrl, projectId);
    await admin.put("drop_table", { preview: "required" }, "test: dry run first");
    await admin.put("delete_repo", { preview: "approve" }, "test: a human approves the dry run");
    const root = await OperatorClient.signIn(server.baseUrl, ROOT.email, ROOT.password);
    operator = await createOperator(root, projectId, "operator");
  });

  async function preview(request: BeginRequest, summary = "drops 1 table") {
    const res = await agent.raw("POST", "/api/v1/calls/preview", { ...request, preview: { summary, affected: ["db.orders"] } });
    expect(res.status).toBe(200);
    return PreviewSchema.parse(await res.json());
  }

  it("required: no token, no execution; the token runs exactly the previewed call once, and is stored only hashed", async () => {
    const request: BeginRequest = { tool: "drop_table", runId: uniqueRun("req"), stepId: "drop", args: { table: "orders" } };
    const asked = expectDecision(await agent.begin(request), "preview_required");
    expect(asked).toMatchObject({ mode: "required" });

    const ready = await preview(request);
    expect(ready).toMatchObject({ status: "ready", mode: "required", key: asked.key, argsFingerprint: asked.argsFingerprint });
    const token = ready.previewToken!;
    expect(token).toMatch(/^igpt_/);
    expect(await dumpTables(server.databaseUrl, ["previews"])).not.toContain(token);

    const other = await agent.expectError("POST", "/api/v1/calls/begin", { ...request, args: { table: "customers" }, previewToken: token });
    expect(other.status).toBe(403);
    expect(other.body.error.code).toBe("preview_token_mismatch");
    const bogus = await agent.expectError("POST", "/api/v1/calls/begin", { ...request, previewToken: "igpt_nope" });
    expect(bogus.body.error.code).toBe("preview_token_invalid");

    const run = expectDecision(await agent.begin({ ...request, previewToken: token }), "execute");
    await agent.complete(run.callId, { leaseToken: run.leaseToken, outcome: "succeeded", result: { dropped: true } });
    // A duplicate replays without any token; the spent token cannot run anything again.
    expect(expectDecision(await agent.begin(request), "replay")).toMatchObject({ result: { dropped: true } });
    const reused = await agent.expectError("POST", "/api/v1/calls/begin", { ...request, runId: uniqueRun("reuse"), previewToken: token });
    expect(reused.body.error.code).toBe("preview_token_used");
  });

  it("approve: nothing runs before approval; after it the previewed args run once; changed args are refused", async () => {
    let deletions = 0;
    const gate = createGate({ baseUrl: server.baseUrl, apiKey });
    const runId = uniqueRun("approve");
    const spec = { tool: "delete_repo", runId, step: "delete", args: { repo: "acme/legacy" } };
    const exec = () => ({ deleted: ++deletions });
    const dryRun = (args: unknown) => ({ summary: `deletes ${(args as { repo: string }).repo} and its 412 issues`, affected: ["acme/legacy"] });

    const call = gate.call(spec, exec, { preview: dryRun, previewTimeoutMs: 60_000 });
    // The inbox shows the preview with its exact args; nothing ran yet.
    let pending: ReturnType<typeof OperatorPreviewSchema.parse> | undefined;
    for (let i = 0; i < 400 && !pending; i++) {
      const list = await operator.call(PreviewListSchema, "GET", operator.p(projectId, "/previews?status=pending"));
      pending = list.previews.find((p) => p.runId === runId);
      if (!pending) await new Promise((r) => setTimeout(r, 50));
    }
    expect(pending).toMatchObject({ tool: "delete_repo", summary: "deletes acme/legacy and its 412 issues", affected: ["acme/legacy"], args: { repo: "acme/legacy" } });
    expect(deletions).toBe(0);
    const early = await agent.expectError("POST", "/api/v1/calls/begin", { tool: "delete_repo", runId, stepId: "delete", args: { repo: "acme/legacy" }, previewToken: "igpt_guess" });
    expect(early.status).toBe(403);
    expect(deletions).toBe(0);

    const approved = await operator.call(OperatorPreviewSchema, "POST", operator.p(projectId, `/previews/${pending!.previewId}/approve`), { note: "legacy repo, archived" });
    expect(approved).toMatchObject({ status: "approved", decidedBy: expect.stringContaining("@") });
    const result = await call;
    expect(result).toMatchObject({ ok: true, status: "executed", value: { deleted: 1 } });
    expect(deletions).toBe(1);
    expect(await gate.call(spec, exec, { preview: dryRun })).toMatchObject({ ok: true, status: "replayed" });

    // The approval was of acme/legacy: other args on another step need their own preview and approval.
    const changed = await gate.call({ ...spec, step: "delete-2", args: { repo: "acme/core" } }, exec, { preview: dryRun, previewTimeoutMs: 300 });
    expect(changed).toMatchObject({ ok: false, status: "preview_pending" });
    const stolen = await agent.raw("GET", `/api/v1/previews/${pending!.previewId}`);
    const token = PreviewSchema.parse(await stolen.json()).previewToken;
    // The approved preview was spent by its run: no token is released again.
    expect(token).toBeUndefined();
    expect(deletions).toBe(1);

    const twice = await operator.expectError("POST", operator.p(projectId, `/previews/${pending!.previewId}/approve`), { note: "again" });
    expect(twice.status).toBe(409);
  });

  it("approve: a token released for the previewed args is refused for changed args", async () => {
    const request: BeginRequest = { tool: "delete_repo", runId: uniqueRun("swap"), stepId: "delete", args: { repo: "acme/a" } };
    const created = await preview(request, "deletes acme/a");
    expect(created).toMatchObject({ status: "pending" });
    expect(created.previewToken).toBeUndefined();
    await operator.call(OperatorPreviewSchema, "POST", operator.p(projectId, `/previews/${created.previewId}/approve`), { note: "ok" });
    const read = PreviewSchema.parse(await (await agent.raw("GET", `/api/v1/previews/${created.previewId}`)).json());
    expect(read.status).toBe("approved");
    const swapped = await agent.expectError("POST", "/api/v1/calls/begin", { ...request, args: { repo: "acme/everything" }, previewToken: read.previewToken });
    expect(swapped.status).toBe(403);
    expect(swapped.body.error.code).toBe("preview_token_mismatch");
    expect(expectDecision(await agent.begin({ ...request, previewToken: read.previewToken }), "execute")).toBeTruthy();
  });

  it("bad previews are 400s and store nothing", async () => {
    for (const body of [{ tool: "drop_table", runId: "r", preview: { summary: "", affected: [] } }, { tool: "drop_table", runId: "r" }, { tool: "drop_table", runId: "r", preview: { summary: "x", affected: "db" } }]) {
      const answer = await agent.expectError("POST", "/api/v1/calls/preview", body);
      expect(answer.status).toBe(400);
      expect(answer.body.error.issues?.length).toBeGreaterThan(0);
    }
  });
});
