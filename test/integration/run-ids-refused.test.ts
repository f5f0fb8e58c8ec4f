import { mkdtempSync } from "node:fs";
import path from "node:path";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { type SharedGatewayWorld, gatewayWorldOnSharedServer } from "../helpers/gateway-world";
import { type Result, allowOutbound, decisionOf, gatewayClient, registerMcpUpstream } from "../helpers/mcp-clients";
import { type RunningUpstream, startUpstream } from "../helpers/mcp-upstream";
import { sql } from "../helpers/sql";

/**
 * The run ids a begin refuses are refused by the gateways too, whichever way the id arrives
 * (begin-kinds.test.ts covers the agent and operator routes that take a run id in the path): in
 * `_meta`, in the Idemgate-Run-Id header, or too long. Nothing runs upstream and nothing is recorded.
 * The check is provider-independent (ids are checked before the store is asked), so SQLite alone.
 */
const INVISIBLE = "run\u200b1";
// Headers carry Latin-1 only, so a header's bad run id is the over-long one.
const OVERLONG = `run-${"x".repeat(220)}`;

describe("sqlite: an invalid run id is refused by the gateways", () => {
  let world: SharedGatewayWorld;
  let upstream: RunningUpstream;
  const clients: Client[] = [];
  const recorded = async (runId: string) => {
    const [row] = await sql<{ n: number | string }>(world.db.url, "SELECT COUNT(*) AS n FROM call_records WHERE project_id = $1 AND run_id = $2", [world.projectId, runId]);
    return Number(row!.n);
  };

  beforeAll(async () => {
    world = await gatewayWorldOnSharedServer("sqlite");
    upstream = await startUpstream(path.join(mkdtempSync(path.join(inject("tmpRoot"), "run-ids-")), "effects.jsonl"));
    await allowOutbound(world.root, world.projectId, "127.0.0.1");
    await registerMcpUpstream(world.root, world.projectId, "shop", upstream.url);
  });
  afterAll(async () => {
    for (const client of clients) await client.close().catch(() => undefined);
    await world?.stop();
    await upstream?.stop();
  });

  it("MCP: a run id in _meta (invisible or over-long) or in the Idemgate-Run-Id header is an invalid call, not run", async () => {
    const plain = await gatewayClient(world.servers[0]!.baseUrl, "shop", world.apiKey);
    const headed = await gatewayClient(world.servers[0]!.baseUrl, "shop", world.apiKey, { headers: { "idemgate-run-id": OVERLONG } });
    clients.push(plain, headed);
    const asks: [string, Client, Record<string, unknown> | undefined, string][] = [
      ["_meta invisible", plain, { "idemgate/runId": INVISIBLE }, "o-invisible"],
      ["_meta over-long", plain, { "idemgate/runId": OVERLONG }, "o-overlong"],
      ["header over-long", headed, undefined, "o-header"],
    ];
    for (const [label, client, meta, orderId] of asks) {
      const result = (await client.callTool({ name: "refund_order", arguments: { orderId, amount: 1 }, ...(meta ? { _meta: meta } : {}) })) as Result;
      expect(result.isError, label).toBe(true);
      expect(decisionOf(result), label).toBe("invalid");
      expect(result._meta?.["idemgate/retryable"], label).toBe(false);
      expect(upstream.effects().filter((effect) => effect.args.orderId === orderId), label).toHaveLength(0);
    }
    expect(await recorded(INVISIBLE)).toBe(0);
    expect(await recorded(OVERLONG)).toBe(0);
  });

  it("/gw: an over-long Idemgate-Run-Id is a 400 problem, and the upstream is not called", async () => {
    const before = world.upstream.requests.length;
    const res = await world.gw("v1/charges", { key: null, body: { amount: 3 }, headers: { "idemgate-run-id": OVERLONG, "idemgate-step-id": "charge" } });
    expect(res.status).toBe(400);
    expect(res.headers.get("content-type")).toBe("application/problem+json");
    await res.body?.cancel();
    expect(world.upstream.requests.length).toBe(before);
    expect(await recorded(OVERLONG)).toBe(0);
  });

  it("the agent API's begin and preview refuse it in the body (400 with an issue on runId)", async () => {
    for (const route of ["/api/v1/calls/begin", "/api/v1/calls/preview"]) {
      for (const runId of [INVISIBLE, OVERLONG]) {
        const res = await fetch(`${world.servers[0]!.baseUrl}${route}`, {
          method: "POST",
          headers: { authorization: `Bearer ${world.apiKey}`, "content-type": "application/json" },
          body: JSON.stringify({ tool: "charge_card", runId, stepId: "charge", args: {} }),
        });
        const body = (await res.json()) as { error: { code: string; issues?: { path: (string | number)[] }[] } };
        expect(res.status, `${route} ${runId.slice(0, 8)}`).toBe(400);
        expect(body.error.issues?.some((issue) => issue.path.join(".") === "runId"), route).toBe(true);
      }
    }
    expect(await recorded(INVISIBLE)).toBe(0);
  });
});
