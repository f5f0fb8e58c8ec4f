import { beforeAll, describe, expect, it } from "vitest";
import { TestClient } from "../helpers/client";
import { PROVIDERS } from "../helpers/databases";
import { createTestProject, eventsForCall } from "../helpers/fixtures";
import { expectDecision, uniqueRun } from "../helpers/policy-fixtures";
import { sharedServer } from "../helpers/shared-server";
import type { SharedServerInfo } from "../helpers/shared-servers-setup";

/** `[[[…0…]]]` as JSON text: JSON.stringify itself overflows at this depth. */
const nested = (depth: number) => `${"[".repeat(depth)}0${"]".repeat(depth)}`;

describe.each(PROVIDERS)("%s: exactly-once under hostile input", (provider) => {
  // The run's shared server: nothing here restarts it or looks beyond its own projects.
  let server: SharedServerInfo;
  let client: TestClient;
  let projectId: string;

  beforeAll(async () => {
    server = await sharedServer(provider);
    const project = await createTestProject(server.databaseUrl);
    projectId = project.projectId;
    client = new TestClient(server.baseUrl, project.apiKey);
  });

  it("a result nested thousands of levels deep is a 400 that names the bound, and the call then completes and replays: the tool never runs twice", async () => {
    const request = { tool: "render_tree", runId: uniqueRun("deep"), stepId: "render" };
    const claim = expectDecision(await client.begin(request), "execute");

    const res = await client.raw(
      "POST",
      `/api/v1/calls/${claim.callId}/complete`,
      `{"leaseToken":${JSON.stringify(claim.leaseToken)},"outcome":"succeeded","result":${nested(5_000)}}`,
    );
    const body = await res.json();
    expect(res.status, JSON.stringify(body)).toBe(400);
    expect(body.error).toMatchObject({ code: "invalid_json", retryable: false });
    expect(body.error.message).toMatch(/deeper than 100 levels/);
    expect(body.error.issues[0].path.slice(0, 2)).toEqual(["result", 0]);
    expect((await client.status(claim.callId)).status).toBe("in_progress");

    // What the SDK does next: the same lease completes without the value it cannot store.
    const done = await client.complete(claim.callId, { leaseToken: claim.leaseToken, outcome: "succeeded" });
    expect(done.status).toBe("succeeded");
    expectDecision(await client.begin(request), "replay");
  });

  it("args nested too deep are a 400 on begin and nothing is stored", async () => {
    const runId = uniqueRun("deep_args");
    const res = await client.raw("POST", "/api/v1/calls/begin", `{"tool":"t","runId":"${runId}","args":{"tree":${nested(3_000)}}}`);
    const body = await res.json();
    expect(res.status, JSON.stringify(body)).toBe(400);
    expect(body.error).toMatchObject({ code: "invalid_json", retryable: false });
    expect(body.error.issues[0].path.slice(0, 2)).toEqual(["args", "tree"]);
    expectDecision(await client.begin({ tool: "t", runId, args: { tree: [] } }), "execute");
  });

  it("an object of too many keys is a 400", async () => {
    const args = Object.fromEntries(Array.from({ length: 10_001 }, (_, i) => [`k${i}`, i]));
    const res = await client.expectError("POST", "/api/v1/calls/begin", { tool: "t", runId: uniqueRun("wide"), args });
    expect(res.status).toBe(400);
    expect(res.body.error.message).toMatch(/more than 10000 keys/);
  });

  it("a made-up lease token is a 409 that writes nothing: no false lease_lost alarm (complete and heartbeat)", async () => {
    const claim = expectDecision(await client.begin({ tool: "charge", runId: uniqueRun("forged"), stepId: "charge" }), "execute");
    const forged = [`l1.1.${"A".repeat(43)}`, `l1.0.${claim.leaseToken.split(".")[2]}`, "not-the-lease"];
    for (const leaseToken of forged) {
      const complete = await client.expectError("POST", `/api/v1/calls/${claim.callId}/complete`, { leaseToken, outcome: "succeeded", result: 1 });
      expect(complete.status).toBe(409);
      expect(complete.body.error).toMatchObject({ code: "lease_lost", retryable: false });
      expect(complete.body.error.message).toMatch(/not issued/);
      const beat = await client.expectError("POST", `/api/v1/calls/${claim.callId}/heartbeat`, { leaseToken, extendSeconds: 5 });
      expect(beat.status).toBe(409);
    }
    const events = await eventsForCall(server.databaseUrl, projectId, claim.callId);
    expect(events.map((e) => e.type)).toEqual(["begin"]);
    expect((await client.status(claim.callId)).status).toBe("in_progress");
    await client.complete(claim.callId, { leaseToken: claim.leaseToken, outcome: "succeeded", result: 1 });
  });

  it("another call's real token is not this call's earlier lease either", async () => {
    const mine = expectDecision(await client.begin({ tool: "charge", runId: uniqueRun("mine"), stepId: "charge" }), "execute");
    const theirs = expectDecision(await client.begin({ tool: "charge", runId: uniqueRun("theirs"), stepId: "charge" }), "execute");
    const res = await client.expectError("POST", `/api/v1/calls/${mine.callId}/complete`, { leaseToken: theirs.leaseToken, outcome: "succeeded" });
    expect(res.status).toBe(409);
    expect((await eventsForCall(server.databaseUrl, projectId, mine.callId)).map((e) => e.type)).toEqual(["begin"]);
  });

  it("the token of an earlier attempt of the same record is the real lease_lost: 409 and the alarm", async () => {
    const request = { tool: "charge", runId: uniqueRun("stale"), stepId: "charge" };
    const first = expectDecision(await client.begin(request), "execute");
    await client.complete(first.callId, { leaseToken: first.leaseToken, outcome: "failed", error: { message: "timeout", retryable: true } });
    const second = expectDecision(await client.begin(request), "execute");
    expect(second.attempt).toBe(2);

    const stale = await client.expectError("POST", `/api/v1/calls/${first.callId}/complete`, { leaseToken: first.leaseToken, outcome: "succeeded" });
    expect(stale.status).toBe(409);
    expect(stale.body.error.message).toMatch(/may have run twice/);
    const beat = await client.expectError("POST", `/api/v1/calls/${first.callId}/heartbeat`, { leaseToken: first.leaseToken });
    expect(beat.status).toBe(409);
    const lost = (await eventsForCall(server.databaseUrl, projectId, first.callId)).filter((e) => e.type === "lease_lost");
    expect(lost.map((e) => e.decision)).toEqual(["complete_succeeded", "heartbeat"]);
  });
});
