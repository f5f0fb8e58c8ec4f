import { existsSync, mkdtempSync, writeFileSync } from "node:fs";
import { spawn } from "node:child_process";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { context, trace } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { W3CTraceContextPropagator } from "@opentelemetry/core";
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { propagation } from "@opentelemetry/api";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createGate } from "../../lib/sdk";
import { TestClient } from "../helpers/client";
import { type TestDatabase, createTestDatabase } from "../helpers/databases";
import { createTestProject } from "../helpers/fixtures";
import { startOtlpReceiver } from "../helpers/otlp-receiver";
import { type TestServer, startServer } from "../helpers/server";

const METRICS_TOKEN = "metrics-token-for-tests-0123456789";
const PROMETHEUS = "/usr/bin/prometheus";

describe("OpenTelemetry: spans exported over OTLP, metrics scraped by Prometheus", () => {
  let db: TestDatabase;
  let server: TestServer;
  let client: TestClient;
  let apiKey: string;
  let otlp: Awaited<ReturnType<typeof startOtlpReceiver>>;

  beforeAll(async () => {
    otlp = await startOtlpReceiver();
    db = await createTestDatabase("sqlite");
    apiKey = (await createTestProject(db.url)).apiKey;
    server = await startServer(db.url, {
      OTEL_EXPORTER_OTLP_ENDPOINT: otlp.endpoint,
      OTEL_SERVICE_NAME: "idemgate-test",
      IDEMGATE_METRICS_TOKEN: METRICS_TOKEN,
    });
    client = new TestClient(server.baseUrl, apiKey);
  });

  afterAll(async () => {
    await server?.stop();
    await otlp?.close();
    await db?.drop();
  });

  it("a caller's traceparent becomes the parent of idemgate.begin, which carries the decision's attributes", async () => {
    const traceId = "4bf92f3577b34da6a3ce929d0e0e4736";
    const parentId = "00f067aa0ba902b7";
    const request = { tool: "charge_card", runId: "run_otel", stepId: "charge", toolCallId: "tc_1", agentId: "agent_a", args: { amount: 3 } };
    const res = await client.raw("POST", "/api/v1/calls/begin", request, { traceparent: `00-${traceId}-${parentId}-01` });
    const first = await res.json();
    expect(first.decision).toBe("execute");

    const [span] = await otlp.waitFor((s) => s.name === "idemgate.begin" && s.traceId === traceId);
    expect(span!.parentSpanId).toBe(parentId);
    expect(span!.attributes).toMatchObject({
      "gen_ai.operation.name": "execute_tool",
      "gen_ai.tool.name": "charge_card",
      "gen_ai.tool.call.id": "tc_1",
      "idemgate.decision": "execute",
      "idemgate.key": first.key,
      "idemgate.run_id": "run_otel",
      "idemgate.agent_id": "agent_a",
      "idemgate.attempt": 1,
      "idemgate.policy_version": 0,
      "idemgate.args_mismatch": false,
    });

    await client.complete(first.callId, { leaseToken: first.leaseToken, outcome: "succeeded", result: { ok: true } });
    const replay = await client.begin({ ...request, toolCallId: "tc_2", args: { amount: "3.00" } });
    expect(replay.decision).toBe("replay");
    const [replaySpan] = await otlp.waitFor((s) => s.name === "idemgate.begin" && s.attributes["idemgate.decision"] === "replay");
    expect(replaySpan!.attributes).toMatchObject({ "idemgate.args_mismatch": true, "gen_ai.tool.call.id": "tc_2" });
    const [complete] = await otlp.waitFor((s) => s.name === "idemgate.complete");
    expect(complete!.attributes).toMatchObject({ "idemgate.outcome": "succeeded", "idemgate.call_id": first.callId });
  });

  it("the SDK wraps the tool in an execute_tool span and the gate's spans become its children", async () => {
    const exporter = new InMemorySpanExporter();
    const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
    const contextManager = new AsyncLocalStorageContextManager().enable();
    context.setGlobalContextManager(contextManager);
    propagation.setGlobalPropagator(new W3CTraceContextPropagator());
    trace.setGlobalTracerProvider(provider);
    try {
      const gate = createGate({ baseUrl: server.baseUrl, apiKey });
      const result = await gate.run({ runId: "run_sdk_otel", agentId: "root" }, () =>
        gate.call({ tool: "send_email", step: "welcome", toolCallId: "tc_9", args: { to: "a@b.c" } }, async () => ({ sent: true })),
      );
      expect(result.status).toBe("executed");
      const [toolSpan] = exporter.getFinishedSpans().filter((s) => s.name === "execute_tool send_email");
      expect(toolSpan).toBeDefined();
      expect(toolSpan!.attributes).toMatchObject({ "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "send_email", "gen_ai.tool.call.id": "tc_9" });
      const gateSpans = await otlp.waitFor((s) => s.traceId === toolSpan!.spanContext().traceId && s.name === "idemgate.complete");
      const begin = otlp.spans.find((s) => s.traceId === toolSpan!.spanContext().traceId && s.name === "idemgate.begin");
      expect(begin?.parentSpanId).toBe(toolSpan!.spanContext().spanId);
      expect(gateSpans[0]!.parentSpanId).toBe(toolSpan!.spanContext().spanId);
    } finally {
      trace.disable();
      context.disable();
      propagation.disable();
    }
  });

  it("/api/metrics needs the bearer token and exposes the decision counter", async () => {
    expect((await fetch(`${server.baseUrl}/api/metrics`)).status).toBe(401);
    expect((await fetch(`${server.baseUrl}/api/metrics`, { headers: { authorization: "Bearer wrong" } })).status).toBe(401);
    const res = await fetch(`${server.baseUrl}/api/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(text).toMatch(/idemgate_decisions_total\{[^}]*tool="charge_card"[^}]*decision="execute"[^}]*\} 1/);
    // Seconds, the base unit (the exporter states it as the metric's UNIT).
    expect(text).toMatch(/# UNIT idemgate_begin_duration(_seconds)? s\n/);
    expect(text).toMatch(/idemgate_begin_duration(_seconds)?_bucket\{/);

    // One attempt left running holds a live lease: the gauge reads it from the database.
    const open = await client.begin({ tool: "export_report", runId: "run_gauge", stepId: "export" });
    expect(open.decision).toBe("execute");
    const again = await (await fetch(`${server.baseUrl}/api/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })).text();
    expect(again).toMatch(/idemgate_leases_live\{[^}]*project_id="[^"]+"[^}]*\} 1\b/);
  });

  it.skipIf(!existsSync(PROMETHEUS) && process.env.CI !== "true")("a real Prometheus scrapes /api/metrics and answers the decision counter", async () => {
    expect(existsSync(PROMETHEUS), "CI must install Debian's prometheus").toBe(true);
    const dir = mkdtempSync(path.join(os.tmpdir(), "idemgate-prom-"));
    const target = new URL(server.baseUrl).host;
    writeFileSync(
      path.join(dir, "prometheus.yml"),
      [
        "global: { scrape_interval: 1s }",
        "scrape_configs:",
        "  - job_name: idemgate",
        "    metrics_path: /api/metrics",
        `    authorization: { credentials: "${METRICS_TOKEN}" }`,
        `    static_configs: [{ targets: ["${target}"] }]`,
      ].join("\n"),
    );
    // A port found free can be taken by another suite's server before Prometheus binds it; then
    // Prometheus exits, and it is started again on another port.
    const startPrometheus = async () => {
      const port = await freePort();
      const child = spawn(PROMETHEUS, [`--config.file=${dir}/prometheus.yml`, `--storage.tsdb.path=${dir}/data`, `--web.listen-address=127.0.0.1:${port}`], {
        stdio: "ignore",
      });
      return { port, child };
    };
    let prom = await startPrometheus();
    try {
      const query = encodeURIComponent('idemgate_decisions_total{tool="charge_card"}');
      const deadline = Date.now() + 60_000;
      let series: { metric: Record<string, string>; value: [number, string] }[] = [];
      while (Date.now() < deadline) {
        if (prom.child.exitCode !== null || prom.child.signalCode !== null) prom = await startPrometheus();
        try {
          const body = await (await fetch(`http://127.0.0.1:${prom.port}/api/v1/query?query=${query}`)).json();
          series = body.data?.result ?? [];
          if (series.some((s) => s.metric.decision === "replay")) break;
        } catch {
          // not up yet
        }
        await new Promise((r) => setTimeout(r, 500));
      }
      const byDecision = Object.fromEntries(series.map((s) => [s.metric.decision, Number(s.value[1])]));
      expect(byDecision).toMatchObject({ execute: 1, replay: 1 });
    } finally {
      prom.child.kill("SIGTERM");
    }
  });
});

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const srv = net.createServer().listen(0, "127.0.0.1", () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}
