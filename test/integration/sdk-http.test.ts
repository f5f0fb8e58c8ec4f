import http from "node:http";
import type net from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GateError, createGate } from "../../lib/sdk";
import { createTestProject } from "../helpers/fixtures";
import { sharedServer } from "../helpers/shared-server";
import type { SharedServerInfo } from "../helpers/shared-servers-setup";

type Fault = "503" | "drop-before" | "drop-after";

/**
 * A reverse proxy in front of the real gate that injects what networks do: a 503 from a load
 * balancer, a connection dropped before the request got through, or after the gate answered.
 */
class FaultyProxy {
  readonly bodies: { path: string; body: string }[] = [];
  readonly faults = new Map<string, Fault[]>();
  private server!: http.Server;
  url = "";

  constructor(private readonly target: string) {}

  async start(): Promise<void> {
    this.server = http.createServer(async (req, res) => {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      const body = Buffer.concat(chunks).toString("utf8");
      const route = req.url!.endsWith("/begin") ? "begin" : req.url!.endsWith("/complete") ? "complete" : "other";
      this.bodies.push({ path: route, body });
      const fault = this.faults.get(route)?.shift();
      if (fault === "503") {
        res.writeHead(503, { "content-type": "application/json" });
        res.end(JSON.stringify({ error: { code: "store_unavailable", message: "try again", retryable: true } }));
        return;
      }
      if (fault === "drop-before") return void (req.socket as net.Socket).destroy();
      const upstream = await fetch(`${this.target}${req.url}`, {
        method: req.method,
        headers: { authorization: req.headers.authorization ?? "", "content-type": "application/json" },
        body: req.method === "GET" ? undefined : body,
      });
      const text = await upstream.text();
      if (fault === "drop-after") return void (req.socket as net.Socket).destroy();
      res.writeHead(upstream.status, { "content-type": "application/json" });
      res.end(text);
    });
    await new Promise<void>((resolve) => this.server.listen(0, "127.0.0.1", resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as net.AddressInfo).port}`;
  }

  sent(route: string): string[] {
    return this.bodies.filter((b) => b.path === route).map((b) => b.body);
  }

  stop(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

describe("SDK over HTTP against a real gate", () => {
  // The run's shared server: nothing here restarts it or looks beyond its own projects.
  let server: SharedServerInfo;
  let proxy: FaultyProxy;
  let apiKey: string;

  beforeAll(async () => {
    server = await sharedServer("sqlite");
    apiKey = (await createTestProject(server.databaseUrl)).apiKey;
    proxy = new FaultyProxy(server.baseUrl);
    await proxy.start();
  });

  afterAll(async () => {
    await proxy?.stop();
  });

  const gate = () => createGate({ baseUrl: proxy.url, apiKey, gateRetry: { initialDelayMs: 20 } });

  it("503s and dropped begins are retried with the identical request; the tool runs once", async () => {
    proxy.faults.set("begin", ["503", "drop-before", "503"]);
    const before = proxy.sent("begin").length;
    const g = gate();
    let runs = 0;
    const result = await g.run({ runId: "http-1" }, () =>
      g.call({ tool: "charge_card", scope: "order:1", toolCallId: "tc_1", args: { amount: 5 } }, async () => ({ charge: ++runs })),
    );
    expect(result).toMatchObject({ ok: true, status: "executed", value: { charge: 1 } });
    const begins = proxy.sent("begin").slice(before);
    expect(begins).toHaveLength(4);
    expect(new Set(begins).size).toBe(1);
  });

  it("a complete whose answer is lost is resent with the same lease and recorded once", async () => {
    proxy.faults.set("complete", ["drop-after", "drop-after"]);
    const before = proxy.sent("complete").length;
    const g = gate();
    const result = await g.run({ runId: "http-2" }, () => g.call({ tool: "send_email", step: "confirm" }, async () => ({ id: "m1" })));
    expect(result).toMatchObject({ ok: true, status: "executed", recorded: true });
    const completes = proxy.sent("complete").slice(before);
    expect(completes).toHaveLength(3);
    expect(new Set(completes).size).toBe(1);
    if (result.status !== "executed") throw new Error("unreachable");
    expect(await g.transport.status(result.callId)).toMatchObject({ status: "succeeded", result: { id: "m1" }, attempt: 1 });
  });

  it("parallel identical calls over HTTP: one runs, the other long-polls and replays the same value", async () => {
    const a = gate();
    const b = gate();
    let runs = 0;
    const exec = async () => {
      runs++;
      await new Promise((r) => setTimeout(r, 200));
      return { exported: "rep_1" };
    };
    const results = await a.run({ runId: "http-3" }, () =>
      Promise.all([a.call({ tool: "export", scope: "order:3" }, exec), b.call({ tool: "export", scope: "order:3" }, exec)]),
    );
    expect(runs).toBe(1);
    expect(results.map((r) => r.status).sort()).toEqual(["executed", "replayed"]);
    expect(results.map((r) => r.ok && r.value)).toEqual([{ exported: "rep_1" }, { exported: "rep_1" }]);
  });

  it("a bad API key is a non-retryable GateError: one request, nothing ran", async () => {
    const before = proxy.sent("begin").length;
    const g = createGate({ baseUrl: proxy.url, apiKey: "ig_wrong" });
    let runs = 0;
    const error = await g.run({ runId: "http-4" }, () => g.call({ tool: "t", step: "s" }, async () => ++runs)).catch((e) => e);
    expect(error).toBeInstanceOf(GateError);
    expect(error).toMatchObject({ code: "unauthorized", retryable: false, details: { status: 401 } });
    expect(proxy.sent("begin").length - before).toBe(1);
    expect(runs).toBe(0);
  });

  it("an unreachable gate is a retryable network GateError after the configured attempts", async () => {
    const g = createGate({ baseUrl: "http://127.0.0.1:9", apiKey, gateRetry: { maxAttempts: 2, initialDelayMs: 10 } });
    const error = await g.run({ runId: "http-5" }, () => g.call({ tool: "t", step: "s" }, async () => 1)).catch((e) => e);
    expect(error).toMatchObject({ name: "GateError", code: "network", retryable: true });
  });
});
