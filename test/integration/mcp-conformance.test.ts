import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, readdirSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { type HttpEndpoint, startBearerProxy, startConformanceUpstream } from "../helpers/conformance-upstream";
import { LoggingMessageNotificationSchema, type LoggingLevel } from "@modelcontextprotocol/sdk/types.js";
import { allowOutbound, decisionOf, gatewayClient, registerMcpUpstream } from "../helpers/mcp-clients";
import { waitFor } from "../helpers/storm-scenario";
import { type TwoProjects, twoProjectsOnSharedServer } from "../helpers/two-projects";

const ROOT = path.resolve(import.meta.dirname, "../..");

/**
 * What the gateway does not pass on, each for a stated reason (README, "MCP gateway"): serving is
 * stateless per request, so nothing can reach a client outside the request it sent except on a
 * stream the client holds open: log messages a tool sends while it runs travel on the call's own
 * response stream, at the level the session set; resource updates on the session's GET stream
 * (mcp-resource-subscriptions.test.ts). None left.
 */
const KNOWN_GAPS: string[] = [];

interface ScenarioResult {
  passed: boolean;
  failures: string[];
}

/** The official suite's server scenarios (its "active" suite) against one URL, by scenario. */
async function runSuite(url: string): Promise<Map<string, ScenarioResult>> {
  const out = mkdtempSync(path.join(inject("tmpRoot"), "conformance-"));
  await new Promise<void>((resolve) => {
    // The runner's exit code counts failures; the checks files are what is read.
    execFile(process.execPath, [path.join(ROOT, "scripts/conformance/run.mjs"), "server", "--url", url, "-o", out], { cwd: ROOT, maxBuffer: 64 * 1024 * 1024 }, () => resolve());
  });
  const results = new Map<string, ScenarioResult>();
  for (const dir of readdirSync(out)) {
    const scenario = /^server-(.+)-\d{4}-\d{2}-\d{2}T[\d-]+Z$/.exec(dir)?.[1];
    if (!scenario) continue;
    const checks = JSON.parse(readFileSync(path.join(out, dir, "checks.json"), "utf8")) as { id: string; status: string; errorMessage?: string }[];
    const failures = checks.filter((check) => check.status === "FAILURE").map((check) => `${check.id}: ${check.errorMessage ?? ""}`);
    results.set(scenario, { passed: failures.length === 0, failures });
  }
  return results;
}

const passing = (results: Map<string, ScenarioResult>) => [...results].filter(([, result]) => result.passed).map(([name]) => name).sort();

// SQLite only: the protocol surface is what is compared here; the gate's storage under MCP is
// covered on both providers by mcp-gateway.test.ts.
describe("MCP conformance suite (@modelcontextprotocol/conformance, server scenarios): through the gateway as directly", () => {
  let upstream: HttpEndpoint;
  let world: TwoProjects;
  let proxy: HttpEndpoint;
  let direct: Map<string, ScenarioResult>;

  beforeAll(async () => {
    upstream = await startConformanceUpstream();
    direct = await runSuite(upstream.url);
    world = await twoProjectsOnSharedServer("sqlite");
    await allowOutbound(world.root, world.projectA, "127.0.0.1");
    await registerMcpUpstream(world.root, world.projectA, "everything", upstream.url.replace("localhost", "127.0.0.1"));
    proxy = await startBearerProxy(`${world.server.baseUrl}/mcp/everything`, world.agentA.apiKey);
  });
  afterAll(async () => {
    await proxy?.stop();
    await world?.stop();
    await upstream?.stop();
  });

  it("every scenario the upstream passes directly passes through the gateway, but for the stated gaps", async () => {
    // The runner does run here (Node 20, scripts/conformance/run.mjs), and the upstream is a fair baseline.
    expect(passing(direct), JSON.stringify([...direct])).toEqual(
      expect.arrayContaining(["server-initialize", "ping", "tools-list", "tools-call-simple-text", "tools-call-error", "tools-call-with-progress", "resources-read-text", "prompts-get-with-args", "dns-rebinding-protection", "resources-subscribe", "resources-unsubscribe", ...KNOWN_GAPS]),
    );
    const gateway = await runSuite(proxy.url);
    const lostThroughGateway = passing(direct).filter((name) => !gateway.get(name)?.passed);
    console.log(
      ["scenario | direct | through the gateway", ...[...direct.keys()].sort().map((name) => `${name} | ${direct.get(name)!.passed ? "pass" : "fail"} | ${gateway.get(name)?.passed ? "pass" : "fail"}`)].join("\n"),
    );
    expect(lostThroughGateway, JSON.stringify(lostThroughGateway.map((name) => [name, gateway.get(name)?.failures]))).toEqual(KNOWN_GAPS);
  });

  it("relays a tool's log messages at or above the level its session set (kept on the session's row, not in a process)", async () => {
    // The upstream logs at info whatever it is asked, so the gateway's own filter is what is tested.
    const run = async (level: LoggingLevel) => {
      const client = await gatewayClient(world.server.baseUrl, "everything", world.agentA.apiKey);
      const messages: { level: string; data?: unknown }[] = [];
      client.setNotificationHandler(LoggingMessageNotificationSchema, (notification) => void messages.push(notification.params));
      await client.setLoggingLevel(level);
      // A run of its own: two sessions of one API key that name no run share its anonymous run (the run window).
      const result = await client.callTool({ name: "test_tool_with_logging", arguments: {}, _meta: { "idemgate/runId": `logging-${level}-${Date.now()}` } });
      return { client, messages, decision: decisionOf(result) };
    };
    const quiet = await run("warning");
    expect(quiet.decision).toBe("execute");
    const chatty = await run("info");
    expect(chatty.decision).toBe("execute");
    await waitFor(async () => chatty.messages.length >= 3, 30_000, "three relayed log messages");
    expect(chatty.messages).toEqual(["Tool execution started", "Tool processing data", "Tool execution completed"].map((data) => ({ level: "info", data })));
    expect(quiet.messages).toEqual([]);
    await Promise.all([quiet.client.close(), chatty.client.close()]);
  });
});
