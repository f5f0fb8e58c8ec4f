import { beforeAll, describe, expect, it } from "vitest";
import type { PolicyOverrides } from "../../lib/core/policy";
import { AdminClient } from "../helpers/admin-client";
import { TestClient } from "../helpers/client";
import { PROVIDERS } from "../helpers/databases";
import { createTestProject, eventsForCall, hasBegins } from "../helpers/fixtures";
import { dumpTables, expectDecision, runOnce, sleep, uniqueRun, uniqueTool } from "../helpers/policy-fixtures";
import { sharedServer } from "../helpers/shared-server";
import type { SharedServerInfo } from "../helpers/shared-servers-setup";

/**
 * One test per policy field, through the HTTP API: each sets the field on a fresh tool and shows
 * the decision the default would not give, so each fails if the engine ignores that field.
 */
describe.each(PROVIDERS)("%s: every policy field changes the engine's decisions", (provider) => {
  // The run's shared server: nothing here restarts it or looks beyond its own projects.
  let server: SharedServerInfo;
  let client: TestClient;
  let admin: AdminClient;
  let projectId: string;

  beforeAll(async () => {
    server = await sharedServer(provider);
    const project = await createTestProject(server.databaseUrl);
    projectId = project.projectId;
    client = new TestClient(server.baseUrl, project.apiKey);
    admin = new AdminClient(server.baseUrl, project.projectId);
  });

  /** A new tool with the given policy: no other test shares it. */
  async function toolWith(label: string, policy: PolicyOverrides): Promise<string> {
    const tool = uniqueTool(label);
    await admin.put(tool, policy, `test: ${label}`);
    return tool;
  }

  it("effect read: a repeated call executes again, and both completes are recorded", async () => {
    const tool = await toolWith("search", { effect: "read" });
    const request = { tool, runId: uniqueRun("read"), stepId: "look-up", args: { q: "refund policy" } };
    const first = await runOnce(client, request);
    const second = await runOnce(client, request);
    expect(second.callId).not.toBe(first.callId);
    for (const call of [first, second]) {
      const events = await eventsForCall(server.databaseUrl, projectId, call.callId);
      expect(events.map((e) => `${e.type}:${e.decision}`)).toEqual(["begin:execute", "complete:succeeded"]);
    }
  });

  it("effect async: a lease that expired answers verify (write would execute, recovered)", async () => {
    const asyncTool = await toolWith("provision", { effect: "async", leaseSeconds: 1 });
    const writeTool = await toolWith("provision_w", { leaseSeconds: 1 });
    const runId = uniqueRun("async");
    expectDecision(await client.begin({ tool: asyncTool, runId, stepId: "vm" }), "execute");
    expectDecision(await client.begin({ tool: writeTool, runId, stepId: "vm" }), "execute");
    await sleep(1_200);
    expect(expectDecision(await client.begin({ tool: asyncTool, runId, stepId: "vm" }), "verify").attempt).toBe(2);
    expect(expectDecision(await client.begin({ tool: writeTool, runId, stepId: "vm" }), "execute")).toMatchObject({ attempt: 2, recovered: true });
  });

  it("onDuplicate refuse: a repeat of a completed call is refused with the original's status", async () => {
    const tool = await toolWith("transfer", { onDuplicate: "refuse" });
    const request = { tool, runId: uniqueRun("refuse"), stepId: "pay", args: { amount: 10 } };
    const first = await runOnce(client, request);
    const refused = expectDecision(await client.begin(request), "refused");
    expect(refused).toMatchObject({ callId: first.callId, original: { status: "succeeded" } });
  });

  it("onDuplicate execute: a repeat runs again under its own call", async () => {
    const tool = await toolWith("ping", { onDuplicate: "execute" });
    const request = { tool, runId: uniqueRun("always"), stepId: "ping" };
    const first = await runOnce(client, request);
    const second = await runOnce(client, request);
    expect(second.callId).not.toBe(first.callId);
  });

  it("onArgsMismatch reject: same key, other args → conflict (replay would flag and replay)", async () => {
    const reject = await toolWith("charge", { onArgsMismatch: "reject" });
    const runId = uniqueRun("mismatch");
    const first = await runOnce(client, { tool: reject, runId, stepId: "charge", args: { amount: 10 } });
    const conflict = expectDecision(await client.begin({ tool: reject, runId, stepId: "charge", args: { amount: 99 } }), "conflict");
    expect(conflict.callId).toBe(first.callId);
  });

  it("keyStrategy scope: one outcome per scope across runs (step would key per run)", async () => {
    const tool = await toolWith("confirm_email", { keyStrategy: "scope" });
    const first = await runOnce(client, { tool, runId: uniqueRun("scope1"), scope: "order:1" });
    const other = expectDecision(await client.begin({ tool, runId: uniqueRun("scope2"), scope: "order:1" }), "replay");
    expect(other.callId).toBe(first.callId);
    expectDecision(await client.begin({ tool, runId: uniqueRun("scope3"), scope: "order:2" }), "execute");
    const missing = await client.expectError("POST", "/api/v1/calls/begin", { tool, runId: uniqueRun("scope4") });
    expect(missing.status).toBe(400);
  });

  it("keyStrategy args: the same args collide across steps (step would key on the step)", async () => {
    const tool = await toolWith("lookup", { keyStrategy: "args" });
    const runId = uniqueRun("args");
    const first = await runOnce(client, { tool, runId, stepId: "a", args: { sku: 1 } });
    expect(expectDecision(await client.begin({ tool, runId, stepId: "b", args: { sku: 1 } }), "replay").callId).toBe(first.callId);
    expectDecision(await client.begin({ tool, runId, stepId: "a", args: { sku: 2 } }), "execute");
  });

  it("keyStrategy toolCallId: each model call acts (step would replay)", async () => {
    const tool = await toolWith("post_message", { keyStrategy: "toolCallId" });
    const runId = uniqueRun("tcid");
    // Other args each time, so the run's loop detector does not see the same call three times.
    await runOnce(client, { tool, runId, stepId: "post", toolCallId: "toolu_1", args: { text: "hi" } });
    expectDecision(await client.begin({ tool, runId, stepId: "post", toolCallId: "toolu_2", args: { text: "hello" } }), "execute");
    expectDecision(await client.begin({ tool, runId, stepId: "post", toolCallId: "toolu_1", args: { text: "hi" } }), "replay");
  });

  it("ignoreFields: listed fields do not change the fingerprint; an emptied list makes requestId count", async () => {
    const nonce = await toolWith("quote", { keyStrategy: "args", ignoreFields: ["nonce"] });
    const strict = await toolWith("quote_strict", { keyStrategy: "args", ignoreFields: [] });
    const runId = uniqueRun("ignore");
    await runOnce(client, { tool: nonce, runId, args: { item: "x", nonce: 1 } });
    expectDecision(await client.begin({ tool: nonce, runId, args: { item: "x", nonce: 2 } }), "replay");
    await runOnce(client, { tool: strict, runId, args: { item: "x", requestId: "r1" } });
    expectDecision(await client.begin({ tool: strict, runId, args: { item: "x", requestId: "r2" } }), "execute");
  });

  it("ttlSeconds: an outcome older than the TTL is not replayed", async () => {
    const tool = await toolWith("short_lived", { ttlSeconds: 1 });
    const request = { tool, runId: uniqueRun("ttl"), stepId: "s" };
    const first = await runOnce(client, request);
    expect(Date.parse((await client.status(first.callId)).expiresAt) - Date.now()).toBeLessThanOrEqual(1_000);
    await sleep(1_200);
    expect(expectDecision(await client.begin(request), "execute").attempt).toBe(1);
  });

  it("leaseSeconds: the lease is that long, and after it another begin takes over", async () => {
    const tool = await toolWith("slow_job", { leaseSeconds: 1 });
    const request = { tool, runId: uniqueRun("lease"), stepId: "s" };
    const before = Date.now();
    const first = expectDecision(await client.begin(request), "execute");
    expect(Date.parse(first.leaseExpiresAt) - before).toBeLessThanOrEqual(1_500);
    expectDecision(await client.begin(request), "in_progress");
    await sleep(1_200);
    expect(expectDecision(await client.begin(request), "execute")).toMatchObject({ attempt: 2, recovered: true });
  });

  it("cacheFailures false: a permanent failure is not replayed, the next begin executes", async () => {
    const tool = await toolWith("flaky", { cacheFailures: false });
    const request = { tool, runId: uniqueRun("fail"), stepId: "s" };
    const first = expectDecision(await client.begin(request), "execute");
    await client.complete(first.callId, { leaseToken: first.leaseToken, outcome: "failed", error: { message: "declined", retryable: false } });
    expect(expectDecision(await client.begin(request), "execute").attempt).toBe(2);
  });

  it("retry: the advice comes with execute and with in_progress", async () => {
    const retry = { maxAttempts: 7, initialDelayMs: 200, backoffFactor: 3, maxDelayMs: 5_000 };
    const tool = await toolWith("upstream", { retry });
    const request = { tool, runId: uniqueRun("retry"), stepId: "s" };
    expect(expectDecision(await client.begin(request), "execute").retry).toEqual(retry);
    const busy = expectDecision(await client.begin(request), "in_progress");
    expect(busy.retry).toEqual(retry);
    expect(busy.retryAfterMs).toBeLessThanOrEqual(200);
  });

  it("redactFields: masked before args or results are stored anywhere; replays return the mask", async () => {
    const tool = await toolWith("pay_card", { redactFields: ["cardNumber", "apiToken"] });
    const runId = uniqueRun("redact");
    const args = { amount: 5, card: { cardNumber: "4242-SECRET-ARG-4242" } };
    const first = expectDecision(await client.begin({ tool, runId, stepId: "pay", args }), "execute");
    const done = await client.complete(first.callId, {
      leaseToken: first.leaseToken,
      outcome: "succeeded",
      result: { ok: true, session: { apiToken: "SECRET-RESULT-TOKEN" } },
    });
    expect(done.result).toEqual({ ok: true, session: { apiToken: "[REDACTED]" } });
    const replay = expectDecision(await client.begin({ tool, runId, stepId: "pay", args }), "replay");
    expect(replay.result).toEqual({ ok: true, session: { apiToken: "[REDACTED]" } });

    const stored = await dumpTables(server.databaseUrl, ["call_records", "events"]);
    expect(stored).toContain(first.callId);
    expect(stored).not.toContain("SECRET-ARG");
    expect(stored).not.toContain("SECRET-RESULT");
  });

  it("each decision records the policy version it was taken under", async () => {
    const tool = uniqueTool("versioned");
    const request = { tool, runId: uniqueRun("version"), stepId: "s" };
    const first = await runOnce(client, request);
    const { revision } = await admin.put(tool, { ttlSeconds: 3_600 }, "shorter retention");
    expectDecision(await client.begin(request), "replay");
    const events = await eventsForCall(server.databaseUrl, projectId, first.callId, { until: hasBegins("replay") });
    expect(events.map((e) => [e.type, e.decision, e.policyVersion])).toEqual([
      ["begin", "execute", 0],
      ["complete", "succeeded", 0],
      ["begin", "replay", revision.version],
    ]);
  });
});
