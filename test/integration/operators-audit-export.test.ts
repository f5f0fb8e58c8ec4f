import { beforeAll, describe, expect, it } from "vitest";
import { PolicyChangeResponseSchema } from "../../lib/contract/admin-policies";
import { CallLedgerSchema } from "../../lib/contract/calls";
import { ApiKeyListSchema, AuditListSchema, OperatorResendRequestSchema, ResendListSchema } from "../../lib/contract/operator";
import { AdminClient } from "../helpers/admin-client";
import { TestClient } from "../helpers/client";
import { PROVIDERS } from "../helpers/databases";
import { createTestProject } from "../helpers/fixtures";
import { OperatorClient, ROOT, agentAsk, createOperator } from "../helpers/operator-client";
import { expectDecision, runOnce, uniqueRun, uniqueTool } from "../helpers/policy-fixtures";
import { sharedServer } from "../helpers/shared-server";
import type { SharedServerInfo } from "../helpers/shared-servers-setup";

/** RFC 4180 enough for these exports: quoted fields with doubled quotes, commas and newlines inside. */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = "";
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') (cell += '"'), i++;
      else if (ch === '"') quoted = false;
      else cell += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === ",") row.push(cell), (cell = "");
    else if (ch === "\n") row.push(cell), rows.push(row), (row = []), (cell = "");
    else if (ch !== "\r") cell += ch;
  }
  if (cell || row.length) row.push(cell), rows.push(row);
  return rows;
}

/** Issue #17 §3 and §5 over real HTTP on both providers: policy changes in the audit log, its filters, CSV exports, key names, args of a paraphrase. */
describe.each(PROVIDERS)("%s: audit log, exports and reviewer context", (provider) => {
  // The run's shared server: nothing here restarts it or looks beyond its own projects.
  let server: SharedServerInfo;
  let agent: TestClient;
  let policies: AdminClient;
  let root: OperatorClient;
  let viewer: OperatorClient;
  let projectId: string;
  let projectB: string;

  beforeAll(async () => {
    server = await sharedServer(provider);
    const [a, b] = [await createTestProject(server.databaseUrl, "A"), await createTestProject(server.databaseUrl, "B")];
    projectId = a.projectId;
    projectB = b.projectId;
    agent = new TestClient(server.baseUrl, a.apiKey);
    policies = new AdminClient(server.baseUrl, projectId);
    root = await OperatorClient.signIn(server.baseUrl, ROOT.email, ROOT.password);
    viewer = await createOperator(root, projectId, "viewer");
  });

  const audit = (client: OperatorClient, query: Record<string, string> = {}) =>
    client.call(AuditListSchema, "GET", client.p(projectId, `/audit?${new URLSearchParams(query)}`));

  it("a policy save and a restore appear in the audit log with who, the reason and the field diff", async () => {
    const tool = uniqueTool("audited");
    await policies.put(tool, { ttlSeconds: 60 }, "shorter outcomes");
    // A signed-in admin is the author (the session's email), not the token.
    const saved = await root.call(PolicyChangeResponseSchema, "PUT", `/api/v1/admin/projects/${projectId}/policies/${tool}`, { policy: { ttlSeconds: 120, onDuplicate: "refuse" }, reason: "refuse repeats" });
    const restored = await policies.restore(tool, saved.revision.version - 1, "back to 60 s");

    const entries = (await audit(viewer, { action: "policy." })).entries.filter((e) => e.target.id === tool);
    expect(entries.map((e) => e.action)).toEqual(["policy.restored", "policy.updated", "policy.updated"]);
    const [restore, byRoot, byToken] = entries;
    expect(byToken).toMatchObject({ actor: { type: "system", label: "admin token" }, target: { type: "policy", id: tool } });
    expect(byToken!.detail).toMatchObject({ tool, reason: "shorter outcomes", changes: [{ path: "ttlSeconds", before: null, after: 60 }] });
    expect(byRoot).toMatchObject({ actor: { type: "user", label: ROOT.email } });
    expect(byRoot!.detail).toMatchObject({
      reason: "refuse repeats",
      changes: expect.arrayContaining([
        { path: "ttlSeconds", before: 60, after: 120 },
        { path: "onDuplicate", before: null, after: "refuse" },
      ]),
    });
    expect(restore!.detail).toMatchObject({ version: restored.revision.version, restoredFrom: saved.revision.version - 1, reason: "back to 60 s" });
  });

  it("filters by actor, action and time; bad filters are a 400", async () => {
    const tool = uniqueTool("filtered");
    const before = new Date().toISOString();
    await policies.put(tool, { leaseSeconds: 10 }, "token edit");
    await root.call(PolicyChangeResponseSchema, "PUT", `/api/v1/admin/projects/${projectId}/policies/${tool}`, { policy: { leaseSeconds: 20 }, reason: "root edit" });
    const after = new Date(Date.now() + 1).toISOString();

    const byRoot = (await audit(viewer, { actor: ROOT.email.slice(0, 6), action: "policy.updated", from: before })).entries;
    expect(byRoot.map((e) => (e.detail as { reason: string }).reason)).toEqual(["root edit"]);
    expect((await audit(viewer, { actor: "admin token", from: before, to: after })).entries.map((e) => e.action)).toEqual(["policy.updated"]);
    expect((await audit(viewer, { action: "policy.", to: before })).entries.every((e) => Date.parse(e.at) < Date.parse(before))).toBe(true);
    expect((await audit(viewer, { action: "no.such." })).entries).toEqual([]);
    expect((await viewer.expectError("GET", viewer.p(projectId, `/audit?from=${after}&to=${before}`))).status).toBe(400);
    expect((await viewer.expectError("GET", viewer.p(projectId, `/audit?actor=`))).status).toBe(400);
  });

  it("exports every matching audit entry and call as CSV, in pages, project-scoped and for members only", async () => {
    const tool = uniqueTool("exported");
    const run = uniqueRun("export");
    // More calls than one page of the export (200), so it must page through.
    // In batches: a loaded machine's pool answers 503 to a few hundred begins at once.
    const calls = [];
    for (let batch = 0; batch < 23; batch++) {
      calls.push(...(await Promise.all(Array.from({ length: 10 }, (_, j) => agent.begin({ tool, runId: run, stepId: `s${batch * 10 + j}`, args: { i: batch * 10 + j } })))));
    }
    const res = await viewer.raw("GET", viewer.p(projectId, `/calls/export?tool=${tool}`));
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/csv/);
    expect(res.headers.get("content-disposition")).toMatch(/attachment; filename="calls-/);
    const rows = parseCsv(await res.text());
    expect(rows[0]).toEqual(["first_seen", "call_id", "tool", "status", "last_decision", "last_decision_at", "run_id", "step_id", "scope", "agent_id", "attempts", "replays", "generation", "key", "completed_at"]);
    expect(rows.length - 1).toBe(230);
    expect(new Set(rows.slice(1).map((r) => r[1]))).toEqual(new Set(calls.map((c) => expectDecision(c, "execute").callId)));

    await policies.put(tool, { ignoreFields: ["=cmd|' /C calc'!A0"] }, "a formula, as a spreadsheet would run it");
    const auditCsv = parseCsv(await (await viewer.raw("GET", viewer.p(projectId, `/audit/export?action=policy.&actor=admin`))).text());
    expect(auditCsv[0]!.slice(0, 5)).toEqual(["at", "actor_type", "actor", "actor_id", "action"]);
    const mine = auditCsv.filter((r) => r[6] === tool);
    expect(mine).toHaveLength(1);
    expect(JSON.parse(mine[0]![7]!)).toMatchObject({ reason: "a formula, as a spreadsheet would run it" });

    // Another project's export: 404 (not a member), without a session: 401, bad filter: 400.
    expect((await viewer.raw("GET", viewer.p(projectB, "/calls/export"))).status).toBe(404);
    expect((await fetch(`${server.baseUrl}${viewer.p(projectId, "/audit/export")}`)).status).toBe(401);
    expect((await viewer.raw("GET", viewer.p(projectId, "/calls/export?decision=maybe"))).status).toBe(400);
  });

  it("a resend request and the audit log name the API key by its name; a paraphrased replay keeps the args it sent", async () => {
    const keys = await root.call(ApiKeyListSchema, "GET", root.p(projectId, "/api-keys"));
    const key = keys.keys[0]!;
    const request = { tool: uniqueTool("named"), runId: uniqueRun("named"), stepId: "send", args: { to: "a@b.c", amount: 1 } };
    const first = await runOnce(agent, request);
    const asked = await agentAsk(agent, first.callId);
    const listed = (await viewer.call(ResendListSchema, "GET", viewer.p(projectId, "/resend-requests?status=pending"))).requests.find((r) => r.requestId === asked.requestId)!;
    expect(listed.requestedBy).toMatchObject({ type: "agent", id: key.id, name: key.name });
    const one = await viewer.call(OperatorResendRequestSchema, "GET", viewer.p(projectId, `/resend-requests/${asked.requestId}`));
    expect(one.requestedBy.name).toBe(key.name);
    const asking = (await audit(viewer, { action: "resend.requested" })).entries.find((e) => e.target.id === asked.requestId)!;
    expect(asking.actor).toMatchObject({ type: "agent", id: key.id, name: key.name });

    const paraphrase = expectDecision(await agent.begin({ ...request, args: { to: "a@b.c", amount: 2 } }), "replay");
    expect(paraphrase.argsMismatch).toBe(true);
    const ledger = await viewer.call(CallLedgerSchema, "GET", viewer.p(projectId, `/calls/${first.callId}/events`));
    expect(ledger.args).toEqual({ to: "a@b.c", amount: 1 });
    const mismatched = ledger.events.filter((e) => e.argsMismatch);
    expect(mismatched).toHaveLength(1);
    expect(mismatched[0]!.detail).toMatchObject({ args: { to: "a@b.c", amount: 2 } });
    // An identical replay keeps no copy.
    expectDecision(await agent.begin(request), "replay");
    const again = await viewer.call(CallLedgerSchema, "GET", viewer.p(projectId, `/calls/${first.callId}/events`));
    expect(again.events.filter((e) => e.decision === "replay" && !e.argsMismatch).every((e) => e.detail === null || !("args" in (e.detail as object)))).toBe(true);
  });
});
