import path from "node:path";
import { mkdtempSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { PROVIDERS, type TestDatabase, createTestDatabase } from "../helpers/databases";
import { createTestProject } from "../helpers/fixtures";
import { OPERATOR_ENV, OperatorClient, ROOT } from "../helpers/operator-client";
import { type TestServer, startServer } from "../helpers/server";
import { type Result, allowOutbound, decisionOf, gatewayClient, registerMcpUpstream } from "../helpers/mcp-clients";
import { type RunningUpstream, startUpstream } from "../helpers/mcp-upstream";

describe.skipIf(!PROVIDERS.includes("postgres"))("MCP gateway: two instances on one Postgres", () => {
  let db: TestDatabase;
  let servers: TestServer[] = [];
  let upstream: RunningUpstream;
  let apiKey: string;

  beforeAll(async () => {
    upstream = await startUpstream(path.join(mkdtempSync(path.join(inject("tmpRoot"), "mcp-pg2-")), "effects.jsonl"));
    db = await createTestDatabase("postgres");
    const project = await createTestProject(db.url, "two instances");
    apiKey = project.apiKey;
    // Both instances must decrypt what either stored: one secrets key for the cluster.
    const env = { ...OPERATOR_ENV, IDEMGATE_SECRETS_KEY: Buffer.alloc(32, 7).toString("base64") };
    servers = [await startServer(db.url, env), await startServer(db.url, env)];
    const root = await OperatorClient.signIn(servers[0]!.baseUrl, ROOT.email, ROOT.password);
    await allowOutbound(root, project.projectId, "127.0.0.1");
    await registerMcpUpstream(root, project.projectId, "shop", upstream.url);
  });
  afterAll(async () => {
    for (const server of servers) await server.stop();
    await db?.drop();
    await upstream?.stop();
  });

  it("concurrent identical calls split across the instances refund once; a session issued by one is served by the other", async () => {
    const [a, b] = [await gatewayClient(servers[0]!.baseUrl, "shop", apiKey), await gatewayClient(servers[1]!.baseUrl, "shop", apiKey)];
    try {
      const args = { orderId: "pg-split", amount: 1, slowMs: 2_000 };
      const results = (await Promise.all(Array.from({ length: 10 }, (_, i) => (i % 2 === 0 ? a : b).callTool({ name: "refund_order", arguments: args, _meta: { "idemgate/runId": "run-split" } })))) as Result[];
      expect(upstream.effects().filter((effect) => effect.args.orderId === "pg-split")).toHaveLength(1);
      expect(results.filter((result) => decisionOf(result) === "execute")).toHaveLength(1);
      expect(results.filter((result) => decisionOf(result) === "replay")).toHaveLength(9);

      const sessionId = (a.transport as { sessionId?: string }).sessionId!;
      const onB = await gatewayClient(servers[1]!.baseUrl, "shop", apiKey, { sessionId });
      const replayed = (await onB.callTool({ name: "refund_order", arguments: { orderId: "pg-session", amount: 2 } })) as Result;
      const again = (await a.callTool({ name: "refund_order", arguments: { orderId: "pg-session", amount: 2 } })) as Result;
      expect([decisionOf(replayed), decisionOf(again)]).toEqual(["execute", "replay"]);
      expect(upstream.effects().filter((effect) => effect.args.orderId === "pg-session")).toHaveLength(1);
    } finally {
      await a.close();
      await b.close();
    }
  });
});
