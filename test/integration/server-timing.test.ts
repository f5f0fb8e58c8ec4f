import { randomUUID } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { BeginResponseSchema, CallStatusSchema, HeartbeatResponseSchema } from "../../lib/contract/v1";
import { createTestProject } from "../helpers/fixtures";
import { sharedServer } from "../helpers/shared-server";
import type { SharedServerInfo } from "../helpers/shared-servers-setup";
import { TestClient } from "../helpers/client";

/**
 * `Server-Timing: gate;dur=…, store;dur=…` on every agent API answer (issue 42): decisions, completes,
 * heartbeats, refusals of bad input and of a bad key, on the lean agent path (/api/v1/calls/…)
 * and on the routes Next.js serves (/api/v1/runs/…, /api/v1/previews/…). Behaviour only: the
 * metric is there and its duration is a number ≥ 0, never how large it is.
 */

/** The metrics of a Server-Timing header (W3C Server Timing): name → its `dur`, NaN when a metric has none. */
function serverTimings(res: Response): Map<string, number> {
  const header = res.headers.get("server-timing");
  expect(header, `Server-Timing on ${res.url} (${res.status})`).toBeTruthy();
  const metrics = new Map<string, number>();
  for (const metric of header!.split(",")) {
    const [name, ...params] = metric.trim().split(";");
    const dur = params.map((p) => p.trim().split("=")).find(([key]) => key === "dur");
    metrics.set(name!.trim(), dur ? Number(dur[1]) : Number.NaN);
  }
  return metrics;
}

function expectGateTiming(res: Response): void {
  const gate = serverTimings(res).get("gate");
  expect(gate, `gate metric on ${res.url} (${res.status})`).toBeDefined();
  expect(Number.isFinite(gate)).toBe(true);
  expect(gate).toBeGreaterThanOrEqual(0);
  // The store's share of it: a number, never more than the whole.
  const store = serverTimings(res).get("store");
  expect(store, `store metric on ${res.url} (${res.status})`).toBeDefined();
  expect(Number.isFinite(store)).toBe(true);
  expect(store).toBeGreaterThanOrEqual(0);
  expect(store).toBeLessThanOrEqual(gate!);
}

describe("Server-Timing on agent API answers", () => {
  // The run's shared server: nothing here restarts it or looks beyond its own project.
  let server: SharedServerInfo;
  let client: TestClient;

  beforeAll(async () => {
    server = await sharedServer("sqlite");
    const project = await createTestProject(server.databaseUrl);
    client = new TestClient(server.baseUrl, project.apiKey);
  });

  it("is on begin (execute, then replay), heartbeat and complete", async () => {
    const call = { tool: "send_email", runId: `run-${randomUUID()}`, stepId: "notify", args: { to: "a@example.com" } };

    const begun = await client.raw("POST", "/api/v1/calls/begin", call);
    expect(begun.status).toBe(200);
    expectGateTiming(begun);
    const execute = BeginResponseSchema.parse(await begun.json());
    if (execute.decision !== "execute") throw new Error(`expected execute, got ${execute.decision}`);

    const beat = await client.raw("POST", `/api/v1/calls/${execute.callId}/heartbeat`, { leaseToken: execute.leaseToken, extendSeconds: 30 });
    expect(beat.status).toBe(200);
    expectGateTiming(beat);
    HeartbeatResponseSchema.parse(await beat.json());

    const done = await client.raw("POST", `/api/v1/calls/${execute.callId}/complete`, { leaseToken: execute.leaseToken, outcome: "succeeded", result: { sent: true } });
    expect(done.status).toBe(200);
    expectGateTiming(done);
    CallStatusSchema.parse(await done.json());

    const again = await client.raw("POST", "/api/v1/calls/begin", call);
    expect(again.status).toBe(200);
    expectGateTiming(again);
    expect(BeginResponseSchema.parse(await again.json()).decision).toBe("replay");
  });

  it("is on refusals: bad input (400) and a bad key (401)", async () => {
    const bad = await client.raw("POST", "/api/v1/calls/begin", { runId: "r1" });
    expect(bad.status).toBe(400);
    expectGateTiming(bad);

    const unknownKey = new TestClient(server.baseUrl, "ig_not-a-key");
    const refused = await unknownKey.raw("POST", "/api/v1/calls/begin", { tool: "send_email", runId: "r1" });
    expect(refused.status).toBe(401);
    expectGateTiming(refused);

    const noKey = await fetch(`${server.baseUrl}/api/v1/calls/begin`, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
    expect(noKey.status).toBe(401);
    expectGateTiming(noKey);
  });

  it("is on the agent routes Next.js serves, answers and errors alike", async () => {
    const plan = await client.raw("GET", `/api/v1/runs/run-${randomUUID()}/compensation`);
    expect(plan.status).toBeLessThan(500);
    expectGateTiming(plan);

    const missing = await client.raw("GET", `/api/v1/previews/${randomUUID()}`);
    expect(missing.status).toBe(404);
    expectGateTiming(missing);

    const unauthorised = await fetch(`${server.baseUrl}/api/v1/runs/run-1/compensation`);
    expect(unauthorised.status).toBe(401);
    expectGateTiming(unauthorised);
  });
});
