import { beforeAll, describe, expect, it } from "vitest";
import { AdminClient, TEST_ADMIN_TOKEN } from "../helpers/admin-client";
import { TestClient } from "../helpers/client";
import { PROVIDERS, createTestDatabase } from "../helpers/databases";
import { type TestProject, createTestProject } from "../helpers/fixtures";
import { expectDecision, runOnce, uniqueRun, uniqueTool } from "../helpers/policy-fixtures";
import { startServer } from "../helpers/server";
import { sharedServerPair } from "../helpers/shared-server";
import type { SharedServerInfo } from "../helpers/shared-servers-setup";

/** The operator policy API: auth, validation, inheritance, revisions, discovery, two processes. */
describe.each(PROVIDERS)("%s: the policy API", (provider) => {
  // The run's shared pair of instances: nothing here restarts them or looks beyond its own project.
  let servers: SharedServerInfo[];
  let project: TestProject;
  let agents: TestClient[];
  let admins: AdminClient[];
  let agent: TestClient;
  let admin: AdminClient;

  beforeAll(async () => {
    servers = await sharedServerPair(provider);
    project = await createTestProject(servers[0]!.databaseUrl);
    agents = servers.map((s) => new TestClient(s.baseUrl, project.apiKey));
    admins = servers.map((s) => new AdminClient(s.baseUrl, project.projectId));
    [agent, admin] = [agents[0]!, admins[0]!];
  });

  it("401 without the admin token, with a wrong one, or with an agent's API key; 404 for an unknown project", async () => {
    for (const token of [null, "wrong-token-wrong-token", project.apiKey]) {
      const denied = await admin.expectError("GET", admin.path(), undefined, token);
      expect(denied.status).toBe(401);
      expect(denied.body.error.code).toBe("unauthorized");
    }
    const asAgent = await new TestClient(servers[0]!.baseUrl, TEST_ADMIN_TOKEN).expectError("POST", "/api/v1/calls/begin", { tool: "t", runId: "r" });
    expect(asAgent.status).toBe(401);
    const unknown = new AdminClient(servers[0]!.baseUrl, "proj_nope");
    expect((await unknown.expectError("GET", unknown.path("x"))).status).toBe(404);
  });

  it("a change through one server process decides the very next begin on the other", async () => {
    const tool = uniqueTool("notify");
    // Args vary a little between calls, so the run's loop detector stays out of it.
    const request = { tool, runId: uniqueRun("xproc"), stepId: "s", args: { n: 1 } };
    const first = await runOnce(agents[0]!, request);
    expectDecision(await agents[1]!.begin({ ...request, args: { n: 2 } }), "replay");
    await admins[1]!.put(tool, { onDuplicate: "refuse" }, "no double notifications");
    expect(expectDecision(await agents[0]!.begin(request), "refused").callId).toBe(first.callId);
    await admins[0]!.put(tool, {}, "back to the defaults");
    expectDecision(await agents[1]!.begin({ ...request, args: { n: 3 } }), "replay");
  });

  it("invalid input is a 400 with zod issues, and nothing is stored", async () => {
    const tool = uniqueTool("strict");
    const cases: [unknown, (string | number)[]][] = [
      [{ policy: { ttlSeconds: -5 }, reason: "r" }, ["policy", "ttlSeconds"]],
      [{ policy: { onDuplicates: "refuse" }, reason: "r" }, ["policy"]],
      [{ policy: { effect: "delete" }, reason: "r" }, ["policy", "effect"]],
      [{ policy: { loop: { repeats: 1 } }, reason: "r" }, ["policy", "loop", "repeats"]],
      [{ policy: {} }, ["reason"]],
      [{ policy: { retry: { initialDelayMs: 5_000, maxDelayMs: 100 } }, reason: "r" }, ["policy", "retry", "maxDelayMs"]],
    ];
    for (const [body, path] of cases) {
      const res = await admin.expectError("PUT", admin.path(tool), body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error.code).toBe("invalid_input");
      expect(res.body.error.issues!.map((i) => i.path), JSON.stringify(res.body)).toContainEqual(path);
    }
    expect((await admin.history(tool)).revisions).toEqual([]);
    expect(await admin.effective(tool)).toMatchObject({ ownVersion: 0, overrides: null });
    expect((await admin.list()).tools.map((t) => t.tool)).not.toContain(tool);
  });

  it("a revision for every accepted change: author, reason, diff; restore is one more; expectedVersion guards", async () => {
    const tool = uniqueTool("refund");
    const v1 = (await admin.put(tool, { ttlSeconds: 600 }, "keep refunds 10 min", { author: "ada" })).revision;
    const v2 = (await admin.put(tool, { ttlSeconds: 60, onDuplicate: "refuse" }, "tighter", { expectedVersion: v1.version })).revision;
    expect(v2.version).toBeGreaterThan(v1.version);
    expect(v2.changes).toEqual([
      { path: "onDuplicate", after: "refuse" },
      { path: "ttlSeconds", before: 600, after: 60 },
    ]);

    const stale = await admin.expectError("PUT", admin.path(tool), { policy: {}, reason: "stale", expectedVersion: v1.version });
    expect(stale.status).toBe(409);
    expect(stale.body.error.code).toBe("version_conflict");

    const restored = await admin.restore(tool, v1.version, "refuse was too strict");
    expect(restored.revision).toMatchObject({ restoredFrom: v1.version, after: { ttlSeconds: 600 }, reason: "refuse was too strict" });
    expect(restored.effective).toMatchObject({ ownVersion: restored.revision.version, overrides: { ttlSeconds: 600 } });
    expect(restored.effective.policy.onDuplicate).toBe("replay");

    const history = (await admin.history(tool)).revisions;
    expect(history.map((r) => [r.version, r.author, r.reason])).toEqual([
      [restored.revision.version, "admin", "refuse was too strict"],
      [v2.version, "admin", "tighter"],
      [v1.version, "ada", "keep refunds 10 min"],
    ]);
    expect(history[2]).toMatchObject({ before: null, after: { ttlSeconds: 600 }, changes: [{ path: "ttlSeconds", after: 600 }] });
    expect((await admin.expectError("POST", admin.path("other_tool", `/revisions/${v1.version}/restore`), { reason: "x" })).status).toBe(404);
  });

  it("`*` holds the project defaults: inherited field by field, and GET says where each field comes from", async () => {
    const own = await createTestProject(servers[0]!.databaseUrl, "inheritance");
    const [agentB, adminB] = [new TestClient(servers[0]!.baseUrl, own.apiKey), new AdminClient(servers[1]!.baseUrl, own.projectId)];
    await adminB.put("*", { onDuplicate: "refuse", onArgsMismatch: "reject", retry: { maxAttempts: 5 } }, "project defaults");
    const replayer = uniqueTool("replayer");
    await adminB.put(replayer, { onDuplicate: "replay", onArgsMismatch: "replay", retry: { initialDelayMs: 250 } }, "coalesce");

    const effective = await adminB.effective(replayer);
    expect(effective.policy.retry).toEqual({ maxAttempts: 5, initialDelayMs: 250, backoffFactor: 2, maxDelayMs: 30_000 });
    expect(effective.sources).toMatchObject({
      onDuplicate: "tool",
      ttlSeconds: "builtin",
      "retry.maxAttempts": "project",
      "retry.initialDelayMs": "tool",
      "retry.backoffFactor": "builtin",
    });
    expect((await adminB.effective("*")).sources).toMatchObject({ onDuplicate: "project", effect: "builtin" });

    const runId = uniqueRun("inherit");
    const plain = { tool: uniqueTool("plain"), runId, stepId: "s", args: { n: 1 } };
    await runOnce(agentB, plain);
    expectDecision(await agentB.begin(plain), "refused");
    expectDecision(await agentB.begin({ ...plain, args: { n: 2 } }), "conflict");
    const coalesced = { tool: replayer, runId, stepId: "s", args: { n: 1 } };
    await runOnce(agentB, coalesced);
    expectDecision(await agentB.begin(coalesced), "replay");
    expect(expectDecision(await agentB.begin({ ...coalesced, args: { n: 2 } }), "replay").argsMismatch).toBe(true);
  });

  it("discovery: a tool is listed from its first call, with its last 24 h of traffic", async () => {
    const own = await createTestProject(servers[0]!.databaseUrl, "discovery");
    const [agentC, adminC] = [new TestClient(servers[0]!.baseUrl, own.apiKey), new AdminClient(servers[0]!.baseUrl, own.projectId)];
    const configured = uniqueTool("configured_first");
    await adminC.put(configured, { ttlSeconds: 120 }, "ahead of launch");
    let list = await adminC.list();
    expect(list.tools.map((t) => t.tool)).toEqual(["*", configured]);
    expect(list.tools[1]).toMatchObject({ hasPolicy: true, firstSeenAt: null, traffic: { calls: 0, executions: 0, replays: 0 } });

    const seen = uniqueTool("seen");
    const runId = uniqueRun("disc");
    await runOnce(agentC, { tool: seen, runId, stepId: "a", args: { step: "a" } });
    expectDecision(await agentC.begin({ tool: seen, runId, stepId: "a", args: { step: "a" } }), "replay");
    await runOnce(agentC, { tool: seen, runId, stepId: "b", args: { step: "b" } });
    await runOnce(agentC, { tool: configured, runId, stepId: "c" });

    list = await adminC.list();
    const byTool = Object.fromEntries(list.tools.map((t) => [t.tool, t]));
    expect(byTool[seen]).toMatchObject({ hasPolicy: false, overrides: null, traffic: { calls: 3, executions: 2, replays: 1 } });
    expect(byTool[seen]!.firstSeenAt).not.toBeNull();
    expect(byTool[configured]!.firstSeenAt).not.toBeNull();
    expect(byTool["*"]).toMatchObject({ hasPolicy: false, traffic: { calls: 0 } });
  });

  it("the simulator replays a tool's recent calls under a draft: deduped, refused, blocked", async () => {
    const tool = uniqueTool("sim");
    for (let run = 0; run < 3; run++) {
      const request = { tool, runId: uniqueRun(`sim${run}`), stepId: "s", toolCallId: `toolu_${run}_0`, args: { to: "x" } };
      await runOnce(agent, request);
      expectDecision(await agent.begin({ ...request, toolCallId: `toolu_${run}_1` }), "replay");
    }
    const asIs = await admin.simulate(tool, {});
    expect(asIs).toMatchObject({ tool, sampled: 6 });
    expect(asIs.actual).toMatchObject({ executed: 3, deduped: 3, refused: 0, blocked: 0 });
    expect(asIs.simulated).toEqual(asIs.actual);
    expect(asIs).toMatchObject({ unreplayable: [], assumedOutcomes: 0 });
    expect((await admin.simulate(tool, { onDuplicate: "refuse" })).simulated).toMatchObject({ executed: 3, deduped: 0, refused: 3 });
    expect((await admin.simulate(tool, { keyStrategy: "toolCallId" })).simulated).toMatchObject({ executed: 6, deduped: 0 });
    expect((await admin.simulate(tool, { loop: { repeats: 2 } })).simulated).toMatchObject({ executed: 3, blocked: 3 });
    // The calls that created their records name no scope (a 400 under `scope`); the replays' own
    // scope was never stored (their key came from the step), so the simulator says so instead of guessing.
    const scoped = await admin.simulate(tool, { keyStrategy: "scope" });
    expect(scoped.simulated).toMatchObject({ rejected: 3 });
    expect(scoped.unreplayable).toEqual([{ reason: expect.stringMatching(/step and scope the draft's key needs are unknown/), count: 3 }]);
    expect((await admin.simulate(tool, {}, 2)).sampled).toBe(2);
    expect((await admin.expectError("POST", admin.path(tool, "/simulate"), { policy: { effect: "nope" } })).status).toBe(400);
  });

  it("is in the OpenAPI document, under its own security scheme", async () => {
    const doc = (await (await fetch(`${servers[0]!.baseUrl}/api/v1/openapi.json`)).json()) as {
      paths: Record<string, Record<string, { security?: unknown[] }>>;
      components: { securitySchemes: Record<string, unknown>; schemas: Record<string, unknown> };
    };
    const base = "/api/v1/admin/projects/{projectId}/policies";
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining([base, `${base}/{tool}`, `${base}/{tool}/revisions`, `${base}/{tool}/revisions/{version}/restore`, `${base}/{tool}/simulate`]),
    );
    expect(doc.paths[`${base}/{tool}`]!.put!.security).toEqual([{ adminToken: [] }]);
    expect(doc.components.securitySchemes).toHaveProperty("adminToken");
    expect(doc.components.schemas).toHaveProperty("PolicyOverrides");
  });
});

describe("the policy API without IDEMGATE_ADMIN_TOKEN", () => {
  it("refuses everyone with 401", async () => {
    const db = await createTestDatabase("sqlite");
    const project = await createTestProject(db.url);
    const server = await startServer(db.url);
    try {
      const admin = new AdminClient(server.baseUrl, project.projectId);
      const res = await admin.expectError("GET", admin.path());
      expect(res.status).toBe(401);
      expect(res.body.error.message).toMatch(/IDEMGATE_ADMIN_TOKEN/);
    } finally {
      await server.stop();
      await db.drop();
    }
  });
});
