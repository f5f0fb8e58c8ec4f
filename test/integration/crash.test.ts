import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { BeginRequest, BeginResponse } from "../../lib/contract/v1";
import { DEFAULT_POLICY } from "../../lib/core/policy";
import { TestClient } from "../helpers/client";
import { PROVIDERS, type TestDatabase, createTestDatabase } from "../helpers/databases";
import { type TestProject, createTestProject } from "../helpers/fixtures";
import { type TestServer, startServer } from "../helpers/server";

type Decision<K extends BeginResponse["decision"]> = Extract<BeginResponse, { decision: K }>;

function expectDecision<K extends BeginResponse["decision"]>(answer: BeginResponse, decision: K): Decision<K> {
  expect(answer, JSON.stringify(answer)).toMatchObject({ decision });
  return answer as Decision<K>;
}

const uniqueRun = (label: string) => `run_${label}_${randomBytes(4).toString("hex")}`;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe.each(PROVIDERS)("%s: a SIGKILLed gate loses nothing", (provider) => {
  let db: TestDatabase;
  let project: TestProject;
  let server: TestServer;

  const client = () => new TestClient(server.baseUrl, project.apiKey);

  /** Crash the gate (no shutdown hooks, nothing flushed) and start a fresh process on the same database. */
  async function crashAndRestart(): Promise<void> {
    const dead = server;
    await dead.kill();
    expect(dead.process.signalCode).toBe("SIGKILL");
    server = await startServer(db.url);
  }

  beforeAll(async () => {
    db = await createTestDatabase(provider);
    project = await createTestProject(db.url);
    server = await startServer(db.url);
  });

  afterAll(async () => {
    await server?.stop();
    await db?.drop();
  });

  it("an in-progress call survives the crash; once its lease expires the next begin recovers it as attempt 2", async () => {
    const request: BeginRequest = { tool: "charge_card", runId: uniqueRun("inflight"), stepId: "charge", args: { amount: 99 } };
    const first = expectDecision(await client().begin(request), "execute");
    const beat = await client().heartbeat(first.callId, first.leaseToken, 1);

    await crashAndRestart();

    const after = await client().status(first.callId);
    expect(after).toMatchObject({
      callId: first.callId,
      key: first.key,
      status: "in_progress",
      attempt: 1,
      completedAt: null,
      leaseExpiresAt: beat.leaseExpiresAt,
    });

    // Recovered within the stated bound: the lease plus the default grace (the holder is silent, not late).
    const wait = Date.parse(beat.leaseExpiresAt!) + DEFAULT_POLICY.leaseGraceSeconds * 1000 + 100 - Date.now();
    if (wait > 0) await sleep(wait);

    const second = expectDecision(await client().begin(request), "execute");
    expect(second).toMatchObject({ callId: first.callId, key: first.key, attempt: 2, recovered: true });

    // The crashed attempt's late answer cannot overwrite the recovered one.
    const late = await client().expectError("POST", `/api/v1/calls/${first.callId}/complete`, {
      leaseToken: first.leaseToken,
      outcome: "succeeded",
      result: { chargeId: "ch_lost" },
    });
    expect(late.status).toBe(409);
    expect(late.body.error.code).toBe("lease_lost");

    await client().complete(second.callId, { leaseToken: second.leaseToken, outcome: "succeeded", result: { chargeId: "ch_2" } });
    expect(expectDecision(await client().begin(request), "replay")).toMatchObject({ result: { chargeId: "ch_2" }, replays: 1 });
  });

  it("a completed call survives the crash and replays its outcome", async () => {
    const request: BeginRequest = { tool: "send_email", runId: uniqueRun("done"), stepId: "confirm", args: { to: "a@b.c" } };
    const first = expectDecision(await client().begin(request), "execute");
    const done = await client().complete(first.callId, {
      leaseToken: first.leaseToken,
      outcome: "succeeded",
      result: { messageId: "m_1" },
    });
    // Other args too: three identical signatures in one run would trip the loop detector.
    const failedReq: BeginRequest = { ...request, stepId: "bounce", args: { to: "nobody@b.c" } };
    const failing = expectDecision(await client().begin(failedReq), "execute");
    const error = { message: "no such mailbox", retryable: false };
    await client().complete(failing.callId, { leaseToken: failing.leaseToken, outcome: "failed", error });

    await crashAndRestart();

    expect(await client().status(first.callId)).toEqual(done);
    const replay = expectDecision(await client().begin(request), "replay");
    expect(replay).toMatchObject({
      callId: first.callId,
      key: first.key,
      status: "succeeded",
      result: { messageId: "m_1" },
      completedAt: done.completedAt,
      firstSeenAt: done.firstSeenAt,
      expiresAt: done.expiresAt,
      replays: 1,
      argsMismatch: false,
    });
    expect(expectDecision(await client().begin(failedReq), "replay")).toMatchObject({ status: "failed", error, replays: 1 });
  });
});
