import { beforeAll, describe, expect, it } from "vitest";
import { ToolPageFiguresSchema } from "../../lib/contract/stats";
import { TestClient } from "../helpers/client";
import { PROVIDERS } from "../helpers/databases";
import { createTestProject } from "../helpers/fixtures";
import { OperatorClient, ROOT, createOperator } from "../helpers/operator-client";
import { expectDecision, uniqueRun, uniqueTool } from "../helpers/policy-fixtures";
import { sharedServer } from "../helpers/shared-server";

/**
 * The per-tool page's cost (issue #38 §2): the costs the tool's completes reported (`cost` on
 * complete), summed per currency and per bucket, read from the ledger on both providers.
 */
describe.each(PROVIDERS)("%s: a tool's reported costs", (provider) => {
  let agent: TestClient;
  let viewer: OperatorClient;
  let projectId: string;

  beforeAll(async () => {
    const server = await sharedServer(provider);
    const project = await createTestProject(server.databaseUrl, "tool figures");
    projectId = project.projectId;
    agent = new TestClient(server.baseUrl, project.apiKey);
    const root = await OperatorClient.signIn(server.baseUrl, ROOT.email, ROOT.password);
    viewer = await createOperator(root, projectId, "viewer");
  });

  it("sums the costs completes reported, per currency, failed completes included, and leaves out completes without one", async () => {
    const tool = uniqueTool("llm");
    const from = new Date(Date.now() - 60_000).toISOString();
    // What the test sends is what it expects: amounts chosen so a float sum would drift (0.1 + 0.2).
    const sent = [
      { amount: 0.1, currency: "USD", outcome: "succeeded" },
      { amount: 0.2, currency: "USD", outcome: "failed" },
      { amount: 1.25, currency: "EUR", outcome: "succeeded" },
      { amount: null, currency: null, outcome: "succeeded" },
    ] as const;
    for (const [i, c] of sent.entries()) {
      const begun = expectDecision(await agent.begin({ tool, runId: uniqueRun(`cost${i}`), stepId: "ask", args: { i } }), "execute");
      const cost = c.amount === null ? {} : { cost: { amount: c.amount, currency: c.currency } };
      const body =
        c.outcome === "failed"
          ? { leaseToken: begun.leaseToken, outcome: "failed" as const, error: { message: "model refused", retryable: false }, ...cost }
          : { leaseToken: begun.leaseToken, outcome: "succeeded" as const, result: { i }, ...cost };
      await agent.complete(begun.callId, body);
    }
    const to = new Date(Date.now() + 60_000).toISOString();
    const figures = await viewer.call(ToolPageFiguresSchema, "GET", viewer.p(projectId, `/tools/${tool}/figures?${new URLSearchParams({ from, to, bucket: "day" })}`));
    expect(figures.completes).toBe(4);
    const day = new Date(Math.floor(Date.now() / 86_400_000) * 86_400_000).toISOString();
    expect(figures.costs).toEqual([
      { currency: "EUR", amount: 1.25, completes: 1, series: [{ at: day, amount: 1.25 }] },
      { currency: "USD", amount: 0.3, completes: 2, series: [{ at: day, amount: 0.3 }] },
    ]);
  });

  it("a tool whose completes report no cost has none", async () => {
    const tool = uniqueTool("plain");
    const begun = expectDecision(await agent.begin({ tool, runId: uniqueRun("plain"), stepId: "go" }), "execute");
    await agent.complete(begun.callId, { leaseToken: begun.leaseToken, outcome: "succeeded", result: {} });
    const figures = await viewer.call(
      ToolPageFiguresSchema,
      "GET",
      viewer.p(projectId, `/tools/${tool}/figures?${new URLSearchParams({ from: new Date(Date.now() - 60_000).toISOString(), to: new Date(Date.now() + 60_000).toISOString() })}`),
    );
    expect(figures).toMatchObject({ calls: 1, completes: 1, costs: [] });
  });
});
