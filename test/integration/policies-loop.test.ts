import { beforeAll, describe, expect, it } from "vitest";
import type { BeginRequest } from "../../lib/contract/v1";
import { AdminClient } from "../helpers/admin-client";
import { TestClient } from "../helpers/client";
import { PROVIDERS } from "../helpers/databases";
import { createTestProject } from "../helpers/fixtures";
import { expectDecision, runOnce, uniqueRun, uniqueTool } from "../helpers/policy-fixtures";
import { sharedServerPair } from "../helpers/shared-server";
import type { SharedServerInfo } from "../helpers/shared-servers-setup";

/**
 * Loop detection per run, from the database: a cycle of (tool, args) signatures repeated
 * `repeats` times in a row is blocked (or flagged), whichever server process or subagent asks.
 */
describe.each(PROVIDERS)("%s: loop detection over HTTP", (provider) => {
  // The run's shared pair of instances: nothing here restarts them or looks beyond its own project.
  let servers: SharedServerInfo[];
  let clients: TestClient[];
  let client: TestClient;
  let admin: AdminClient;

  beforeAll(async () => {
    servers = await sharedServerPair(provider);
    const project = await createTestProject(servers[0]!.databaseUrl);
    clients = servers.map((s) => new TestClient(s.baseUrl, project.apiKey));
    client = clients[0]!;
    admin = new AdminClient(servers[0]!.baseUrl, project.projectId);
  });

  it("a 1-cycle: the same call a 3rd time in a row is blocked — replays count", async () => {
    const request = { tool: uniqueTool("search"), runId: uniqueRun("one"), stepId: "find", args: { q: "status" } };
    await runOnce(client, request);
    expectDecision(await client.begin(request), "replay");
    const blocked = expectDecision(await client.begin(request), "blocked");
    expect(blocked).toEqual({ decision: "blocked", reason: "loop_detected", pattern: [request.tool], repeats: 3 });
    // Still looping: still blocked.
    expectDecision(await client.begin(request), "blocked");
  });

  it("the same tool-call id resent is a transport retry, not a loop step; a new tool-call id is", async () => {
    const request = { tool: uniqueTool("refund"), runId: uniqueRun("resend"), stepId: "refund", toolCallId: "tc_1", args: { amount: 5 } };
    await runOnce(client, request);
    for (let i = 0; i < 5; i++) expectDecision(await client.begin(request), "replay");
    expectDecision(await client.begin({ ...request, toolCallId: "tc_2" }), "replay");
    expectDecision(await client.begin({ ...request, toolCallId: "tc_3" }), "blocked");
  });

  it("a 2-cycle: A B A B A B — the 3rd repetition of the pair is blocked, through both servers", async () => {
    const runId = uniqueRun("two");
    const a = { tool: uniqueTool("open_page"), runId, stepId: "open", args: { url: "/a" } };
    const b = { tool: uniqueTool("go_back"), runId, stepId: "back" };
    await runOnce(clients[0]!, a);
    await runOnce(clients[1]!, b);
    const answers = [];
    for (const [i, request] of [a, b, a].entries()) answers.push((await clients[i % 2]!.begin(request)).decision);
    expect(answers).toEqual(["replay", "replay", "replay"]);
    const blocked = expectDecision(await clients[1]!.begin(b), "blocked");
    expect(blocked.pattern).toEqual([a.tool, b.tool]);
  });

  it("a 3-cycle is not blocked while maxCycleLength is 2", async () => {
    const runId = uniqueRun("three");
    const calls = ["a", "b", "c"].map((name) => ({ tool: uniqueTool(`t_${name}`), runId, stepId: name }));
    for (const call of calls) await runOnce(client, call);
    for (let round = 0; round < 2; round++) {
      for (const call of calls) expectDecision(await client.begin(call), "replay");
    }
  });

  it("a 3-cycle is blocked once the policy's maxCycleLength allows it", async () => {
    const runId = uniqueRun("three_on");
    const calls = ["a", "b", "c"].map((name) => ({ tool: uniqueTool(`t3_${name}`), runId, stepId: name }));
    // The cycle's tools all look for 3-cycles; the last call decides under its own policy.
    for (const call of calls) await admin.put(call.tool, { loop: { maxCycleLength: 3 } });
    for (const call of calls) await runOnce(client, call);
    for (const call of [...calls, calls[0]!, calls[1]!]) expectDecision(await client.begin(call), "replay");
    expect(expectDecision(await client.begin(calls[2]!), "blocked").pattern).toEqual(calls.map((c) => c.tool));
  });

  it("subagents of one run share the detector; other runs and other args are other signatures", async () => {
    const runId = uniqueRun("agents");
    const tool = uniqueTool("lookup");
    const call = (agentId: string, extra: Partial<BeginRequest> = {}) => ({ tool, runId, agentId, stepId: "s", args: { id: 7 }, ...extra });
    await runOnce(client, call("planner"));
    expectDecision(await client.begin({ ...call("planner"), runId: uniqueRun("other") }), "execute");
    expectDecision(await client.begin(call("researcher")), "replay");
    expectDecision(await client.begin(call("writer", { args: { id: 8 } })), "replay");
    expectDecision(await client.begin(call("writer")), "replay");
    expectDecision(await client.begin(call("writer")), "replay");
    expectDecision(await client.begin(call("researcher")), "blocked");
  });

  it("action warn: the decision stands, flagged; repeats and enabled are honoured", async () => {
    const warn = uniqueTool("warned");
    await admin.put(warn, { loop: { action: "warn" } });
    const request = { tool: warn, runId: uniqueRun("warn"), stepId: "s" };
    await runOnce(client, request);
    expect(expectDecision(await client.begin(request), "replay").loopWarning).toBeUndefined();
    const flagged = expectDecision(await client.begin(request), "replay");
    expect(flagged.loopWarning).toEqual({ reason: "loop_detected", pattern: [warn], repeats: 3 });

    const patient = uniqueTool("patient");
    await admin.put(patient, { loop: { repeats: 4 } });
    const four = { tool: patient, runId: uniqueRun("four"), stepId: "s" };
    await runOnce(client, four);
    expect([(await client.begin(four)).decision, (await client.begin(four)).decision, (await client.begin(four)).decision]).toEqual([
      "replay",
      "replay",
      "blocked",
    ]);

    const off = uniqueTool("unwatched");
    await admin.put(off, { loop: { enabled: false } });
    const free = { tool: off, runId: uniqueRun("off"), stepId: "s" };
    await runOnce(client, free);
    for (let i = 0; i < 4; i++) expectDecision(await client.begin(free), "replay");
  });

  it("concurrent duplicates and retries of an unfinished key are not loop steps", async () => {
    const request = { tool: uniqueTool("slow"), runId: uniqueRun("busy"), stepId: "s" };
    const first = expectDecision(await client.begin(request), "execute");
    for (let i = 0; i < 4; i++) expectDecision(await clients[i % 2]!.begin(request), "in_progress");
    await client.complete(first.callId, { leaseToken: first.leaseToken, outcome: "failed", error: { message: "503", retryable: true } });
    const retry = expectDecision(await client.begin(request), "execute");
    await client.complete(retry.callId, { leaseToken: retry.leaseToken, outcome: "failed", error: { message: "503", retryable: true } });
    expect(expectDecision(await client.begin(request), "execute").attempt).toBe(3);
  });
});
