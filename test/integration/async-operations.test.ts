import { beforeAll, describe, expect, it } from "vitest";
import type { BeginRequest } from "../../lib/contract/v1";
import { accepted, createGate } from "../../lib/sdk";
import { DEFAULT_POLICY } from "../../lib/core/policy";
import { AdminClient } from "../helpers/admin-client";
import { TestClient } from "../helpers/client";
import { PROVIDERS } from "../helpers/databases";
import { type TestProject, createTestProject, eventsForCall, hasBegins } from "../helpers/fixtures";
import { expectDecision, uniqueRun } from "../helpers/policy-fixtures";
import { sharedServer } from "../helpers/shared-server";
import type { SharedServerInfo } from "../helpers/shared-servers-setup";

/** A downstream job service: starting a job is the effect that must happen once per key. */
class JobService {
  readonly started = new Map<string, string>();
  start(idempotencyKey: string): string {
    const id = `op_${this.started.size + 1}`;
    this.started.set(`${idempotencyKey}#${this.started.size}`, id);
    return id;
  }
  get count(): number {
    return this.started.size;
  }
}

describe.each(PROVIDERS)("%s: async operations (accepted, not done) over HTTP", (provider) => {
  // The run's shared server: nothing here restarts it or looks beyond its own projects.
  let server: SharedServerInfo;
  let project: TestProject;
  let client: TestClient;

  beforeAll(async () => {
    server = await sharedServer(provider);
    project = await createTestProject(server.databaseUrl);
    client = new TestClient(server.baseUrl, project.apiKey);
    // Polling an operation by calling again is the point here, not a loop.
    await new AdminClient(server.baseUrl, project.projectId).put("export_report", { loop: { ...DEFAULT_POLICY.loop, action: "warn" } }, "test: polls are not loops");
  });

  it("a lost accepted response: the retry replays the operation id and the job starts once; the operation id finishes it", async () => {
    const jobs = new JobService();
    const request: BeginRequest = { tool: "export_report", runId: uniqueRun("accepted"), stepId: "export", args: { month: "2026-10" } };

    const first = expectDecision(await client.begin(request), "execute");
    const operationId = jobs.start(first.key);
    // The gate stores the acceptance; the agent never sees this answer (its process died, the model moved on).
    await client.complete(first.callId, { leaseToken: first.leaseToken, outcome: "accepted", operationId, statusUrl: `https://jobs.example/${operationId}` });

    const retried = expectDecision(await client.begin(request), "replay");
    expect(retried).toMatchObject({ callId: first.callId, status: "accepted", operationId, statusUrl: `https://jobs.example/${operationId}` });
    expect(retried).not.toHaveProperty("leaseToken");
    expect(retried).not.toHaveProperty("loopWarning");
    expect(jobs.count).toBe(1);

    const status = await client.status(first.callId);
    expect(status).toMatchObject({ status: "accepted", operationId });
    // Its own TTL (default 7 days), not the outcome TTL (1 day).
    expect(Date.parse(status.expiresAt) - Date.now()).toBeGreaterThan(6 * 86_400_000);

    const wrong = await client.expectError("POST", `/api/v1/calls/${first.callId}/complete`, { operationId: "op_other", outcome: "succeeded" });
    expect(wrong.status).toBe(409);
    expect(wrong.body.error.code).toBe("invalid_state");

    const done = await client.complete(first.callId, { operationId, outcome: "succeeded", result: { rows: 1204 } });
    expect(done).toMatchObject({ status: "succeeded", result: { rows: 1204 } });
    expect(done).not.toHaveProperty("operationId");
    expect(expectDecision(await client.begin(request), "replay")).toMatchObject({ status: "succeeded", result: { rows: 1204 } });
    expect(jobs.count).toBe(1);

    const decisions = (await eventsForCall(server.databaseUrl, project.projectId, first.callId, { until: hasBegins("replay", 2) })).map((e) => `${e.type}:${e.decision}`);
    expect(decisions).toEqual(["begin:execute", "complete:accepted", "begin:replay", "complete:succeeded", "begin:replay"]);
  });

  it("bad completes are 400s with issues and change nothing", async () => {
    const request: BeginRequest = { tool: "export_report", runId: uniqueRun("bad"), stepId: "export" };
    const first = expectDecision(await client.begin(request), "execute");
    for (const body of [
      { leaseToken: first.leaseToken, outcome: "accepted" },
      { outcome: "succeeded", result: 1 },
      { leaseToken: first.leaseToken, outcome: "accepted", operationId: "op_1", statusUrl: "not a url" },
    ]) {
      const answer = await client.expectError("POST", `/api/v1/calls/${first.callId}/complete`, body);
      expect(answer.status, JSON.stringify(body)).toBe(400);
      expect(answer.body.error.issues?.length).toBeGreaterThan(0);
    }
    expect((await client.status(first.callId)).status).toBe("in_progress");
  });

  it("the SDK: exec returns accepted(…), later calls get the operation without running, finishOperation ends it", async () => {
    const jobs = new JobService();
    const gate = createGate({ baseUrl: server.baseUrl, apiKey: project.apiKey });
    const runId = uniqueRun("sdk-accepted");
    const spec = { tool: "export_report", runId, step: "export", args: { month: "2026-11" } };
    const exec = ({ idempotencyKey }: { idempotencyKey: string }) => accepted({ operationId: jobs.start(idempotencyKey) });

    const first = await gate.call(spec, exec);
    expect(first).toMatchObject({ ok: true, status: "accepted", operationId: "op_1", replayed: false, value: { operationId: "op_1" } });
    const again = await gate.call(spec, exec);
    expect(again).toMatchObject({ ok: true, status: "accepted", operationId: "op_1", replayed: true });
    expect(jobs.count).toBe(1);

    if (first.status !== "accepted") throw new Error(first.status);
    await gate.finishOperation(first.callId, "op_1", { ok: true, result: { rows: 7 } });
    expect(await gate.call(spec, exec)).toMatchObject({ ok: true, status: "replayed", value: { rows: 7 } });
    expect(jobs.count).toBe(1);
  });
});
