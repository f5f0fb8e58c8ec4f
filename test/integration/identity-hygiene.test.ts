import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AdminClient, TEST_ADMIN_TOKEN } from "../helpers/admin-client";
import { TestClient } from "../helpers/client";
import { PROVIDERS, type TestDatabase, createTestDatabase } from "../helpers/databases";
import { createTestProject } from "../helpers/fixtures";
import { expectDecision, runOnce, uniqueRun } from "../helpers/policy-fixtures";
import { type TestServer, startServer } from "../helpers/server";
import { scalar, sql } from "../helpers/sql";

const NFC = "caf\u00e9";
const NFD = "cafe\u0301";

/**
 * Identity hygiene (issue #16, item 4): one spelling of a tool or an id is one key and one policy,
 * an invisible character in a tool name is refused, and redaction matches a field however its
 * name is spelled.
 */
describe.each(PROVIDERS)("%s: identity hygiene", (provider) => {
  let db: TestDatabase;
  let server: TestServer;
  let client: TestClient;
  let admin: AdminClient;

  beforeAll(async () => {
    db = await createTestDatabase(provider);
    const project = await createTestProject(db.url);
    server = await startServer(db.url, { IDEMGATE_ADMIN_TOKEN: TEST_ADMIN_TOKEN });
    client = new TestClient(server.baseUrl, project.apiKey);
    admin = new AdminClient(server.baseUrl, project.projectId);
  });

  afterAll(async () => {
    await server?.stop();
    await db?.drop();
  });

  it("a tool and ids spelled in NFC and NFD are one call: the second spelling replays", async () => {
    const runId = uniqueRun(NFC);
    const first = await runOnce(client, { tool: `${NFC}_order`, runId, stepId: `pay ${NFC}`, scope: `order:${NFC}`, args: { n: 1 } });
    const again = await client.begin({ tool: `${NFD}_order`, runId: runId.replace(NFC, NFD), stepId: `pay ${NFD}`, scope: `order:${NFD}`, args: { n: 1 } });
    const replay = expectDecision(again, "replay");
    expect(replay.key).toBe(first.key);
    expect(replay.argsMismatch).toBe(false);
  });

  it("a policy set under one spelling governs calls made under the other", async () => {
    await admin.put(`${NFD}_refund`, { onDuplicate: "refuse" });
    const runId = uniqueRun("refund");
    await runOnce(client, { tool: `${NFC}_refund`, runId, stepId: "refund" });
    expectDecision(await client.begin({ tool: `${NFC}_refund`, runId, stepId: "refund" }), "refused");
  });

  it.each([
    ["a zero-width space", "charge\u200bcard"],
    ["a zero-width joiner", "charge\u200dcard"],
    ["a byte-order mark", "\ufeffcharge_card"],
    ["a right-to-left override", "charge\u202ecard"],
    ["a control character", "charge\u0007card"],
    ["a newline", "charge\ncard"],
  ])("a tool name with %s is a 400 with zod issues, and nothing is stored", async (_label, tool) => {
    // Counted by the refused request's own run: the earlier tests' decision-only events may still be
    // landing (they are written a few milliseconds behind their answers).
    const runId = uniqueRun("zw");
    const { status, body } = await client.expectError("POST", "/api/v1/calls/begin", { tool, runId });
    expect(status).toBe(400);
    expect(body.error.code).toBe("invalid_input");
    expect(body.error.issues?.some((issue) => issue.path.join(".") === "tool")).toBe(true);
    expect(await scalar(db.url, "SELECT COUNT(*) FROM events WHERE run_id = $1", [runId])).toBe(0);
    expect(await scalar(db.url, "SELECT COUNT(*) FROM call_records WHERE run_id = $1", [runId])).toBe(0);
  });

  it.each([
    ["runId", { runId: "run\u200b1" }],
    ["stepId", { stepId: "charge\u200dcustomer" }],
    ["scope", { scope: "order:\ufeff42" }],
    ["toolCallId", { toolCallId: "toolu_\u202e01" }],
    ["agentId", { agentId: "planner\u0007" }],
  ])("an invisible character in %s is a 400 with zod issues, and nothing is stored", async (field, ids) => {
    const before = await scalar(db.url, "SELECT COUNT(*) FROM events");
    const { status, body } = await client.expectError("POST", "/api/v1/calls/begin", { tool: "charge_card", runId: uniqueRun("ids"), ...ids });
    expect(status).toBe(400);
    expect(body.error.code).toBe("invalid_input");
    expect(body.error.issues?.some((issue) => issue.path.join(".") === field)).toBe(true);
    expect(await scalar(db.url, "SELECT COUNT(*) FROM events")).toBe(before);
  });

  it("the admin API refuses such a tool name for a policy", async () => {
    const { status, body } = await admin.expectError("PUT", admin.path("charge\u200bcard"), { policy: { onDuplicate: "refuse" }, reason: "x" });
    expect(status).toBe(400);
    expect(body.error.code).toBe("invalid_input");
  });

  it("redaction masks a field whatever its case or confusable spelling, in args and results", async () => {
    const tool = `login_${uniqueRun("t")}`;
    await admin.put(tool, { redactFields: ["password", "PIN"] });
    const secrets = { Password: "hunter2-a", PASSWORD: "hunter2-b", "p\u0430ssword": "hunter2-c", pin: "493817", user: "ada" };
    const call = await runOnce(client, { tool, runId: uniqueRun("redact"), stepId: "login", args: secrets }, { session: { Pin: "123456" } });
    const [row] = await sql<{ args: string; result: string }>(db.url, "SELECT args, result FROM call_records WHERE id = $1", [call.callId]);
    const stored = `${row!.args} ${row!.result}`;
    for (const secret of ["hunter2", "493817", "123456"]) expect(stored).not.toContain(secret);
    expect(JSON.parse(row!.args)).toMatchObject({ Password: "[REDACTED]", "p\u0430ssword": "[REDACTED]", user: "ada" });
  });
});
