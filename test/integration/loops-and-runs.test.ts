import { beforeAll, describe, expect, it } from "vitest";
import type { z } from "zod";
import { CallLedgerSchema, CallListSchema, RunDetailSchema, RunListSchema } from "../../lib/contract/calls";
import { BEGIN_DECISIONS } from "../../lib/contract/v1";
import { TestClient } from "../helpers/client";
import { PROVIDERS } from "../helpers/databases";
import { createTestProject } from "../helpers/fixtures";
import { OperatorClient, ROOT, createOperator } from "../helpers/operator-client";
import { expectDecision, runOnce, uniqueRun, uniqueTool } from "../helpers/policy-fixtures";
import { sharedServer } from "../helpers/shared-server";
import type { SharedServerInfo } from "../helpers/shared-servers-setup";

/**
 * Issue #17, loops and blocks visible: every begin decision is a calls filter (blocked included,
 * the contract's one list), a blocked begin names the call it repeats and its cycle, and runs are
 * searched by run id, agent, tool and state — over real HTTP on both providers.
 */
describe.each(PROVIDERS)("%s: loops and blocks in the explorer", (provider) => {
  // The run's shared server: nothing here restarts it or looks beyond its own projects.
  let server: SharedServerInfo;
  let agent: TestClient;
  let viewer: OperatorClient;
  let projectId: string;
  const search = uniqueTool("search_kb");
  const fetch = uniqueTool("fetch_page");
  const looping = uniqueRun("loop");
  const calm = uniqueRun("calm");

  beforeAll(async () => {
    server = await sharedServer(provider);
    const project = await createTestProject(server.databaseUrl, "loops");
    projectId = project.projectId;
    agent = new TestClient(server.baseUrl, project.apiKey);
    const root = await OperatorClient.signIn(server.baseUrl, ROOT.email, ROOT.password);
    viewer = await createOperator(root, projectId, "viewer");

    // The researcher agent alternates search and fetch with the same arguments: the third pair is blocked.
    const a = { tool: search, runId: looping, agentId: "researcher", stepId: "search", args: { q: "refund policy" } };
    const b = { tool: fetch, runId: looping, agentId: "researcher", stepId: "fetch", args: { url: "https://kb/refunds" } };
    await runOnce(agent, a);
    await runOnce(agent, b);
    expectDecision(await agent.begin(a), "replay");
    expectDecision(await agent.begin(b), "replay");
    expectDecision(await agent.begin(a), "replay");
    expect(expectDecision(await agent.begin(b), "blocked")).toMatchObject({ pattern: [search, fetch], repeats: 3 });
    // Another run, calm: one call, succeeded.
    await runOnce(agent, { tool: search, runId: calm, agentId: "writer", stepId: "search", args: { q: "shipping" } });
  });

  const get = <S extends z.ZodType>(schema: S, path: string) => viewer.call(schema, "GET", viewer.p(projectId, path));

  it("decision=blocked is a filter like every other decision: it finds the call the loop kept repeating", async () => {
    const blocked = await get(CallListSchema, "/calls?decision=blocked");
    expect(blocked.calls.map((c) => [c.tool, c.runId, c.lastDecision?.decision])).toEqual([[fetch, looping, "blocked"]]);
    const ledger = await get(CallLedgerSchema, `/calls/${blocked.calls[0]!.callId}/events`);
    const block = ledger.events.find((e) => e.decision === "blocked");
    expect(block?.detail).toMatchObject({ loop: { reason: "loop_detected", pattern: [search, fetch], repeats: 3 } });
    expect((await get(CallListSchema, "/calls?decision=blocked,replay")).calls.length).toBe(2);
    expect((await viewer.expectError("GET", viewer.p(projectId, "/calls?decision=looping"))).status).toBe(400);
  });

  it("the run's ledger carries the cycle on its blocked begin", async () => {
    const run = await get(RunDetailSchema, `/runs/${encodeURIComponent(looping)}`);
    const blocks = run.events.filter((e) => e.decision === "blocked");
    expect(blocks).toHaveLength(1);
    expect(blocks[0]!.detail).toMatchObject({ loop: { pattern: [search, fetch], repeats: 3 } });
  });

  it("runs are searched by run id (or its start), agent, tool and state", async () => {
    const runs = async (query: string) => (await get(RunListSchema, `/runs?${query}`)).runs.map((r) => r.runId).sort();
    expect(await runs("")).toEqual([calm, looping].sort());
    expect(await runs(`runId=${looping}`)).toEqual([looping]);
    expect(await runs(`runId=${looping.slice(0, looping.length - 3)}`)).toEqual([looping]);
    expect(await runs("agentId=writer")).toEqual([calm]);
    expect(await runs(`tool=${fetch}`)).toEqual([looping]);
    expect(await runs(`tool=${search}&agentId=researcher`)).toEqual([looping]);
    expect(await runs("state=blocked")).toEqual([looping]);
    expect(await runs("state=succeeded")).toEqual([calm, looping].sort());
    expect(await runs("state=failed")).toEqual([]);
    expect((await viewer.expectError("GET", viewer.p(projectId, "/runs?state=stuck"))).status).toBe(400);
  });

  it("the OpenAPI document lists the same decisions and the runs search", async () => {
    const doc = (await (await globalThis.fetch(`${server.baseUrl}/api/v1/openapi.json`)).json()) as {
      paths: Record<string, { get?: { parameters?: { name: string; schema?: unknown }[] } }>;
      components: { schemas: Record<string, { enum?: string[] } | undefined> };
    };
    expect(doc.components.schemas.BeginDecisionName?.enum).toEqual([...BEGIN_DECISIONS]);
    expect(BEGIN_DECISIONS).toContain("blocked");
    const runsPath = Object.keys(doc.paths).find((path) => path.endsWith("/runs"))!;
    expect(doc.paths[runsPath]!.get!.parameters!.map((p) => p.name)).toEqual(expect.arrayContaining(["runId", "agentId", "tool", "state"]));
    // The calls filter's decision is that same list (by reference) plus the two non-begin entries.
    const callsPath = Object.keys(doc.paths).find((path) => path.endsWith("/calls") && path.includes("operator"))!;
    const decision = doc.paths[callsPath]!.get!.parameters!.find((p) => p.name === "decision");
    expect(JSON.stringify(decision)).toContain("#/components/schemas/BeginDecisionName");
    expect(JSON.stringify(decision)).toContain("lease_lost");
  });
});
