import Database from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import { TestClient } from "../helpers/client";
import { PROVIDERS, type TestDatabase, createTestDatabase } from "../helpers/databases";
import { createTestProject } from "../helpers/fixtures";
import { adminQuery } from "../helpers/postgres";
import { type TestServer, startServer } from "../helpers/server";

const request = { tool: "charge_card", runId: "run_outage", stepId: "charge", args: { amount: 5 } };

describe("a failing store answers a retryable 503, and the same request succeeds once it is back", () => {
  let db: TestDatabase | undefined;
  let server: TestServer | undefined;

  afterEach(async () => {
    await server?.stop();
    await db?.drop();
  });

  it("sqlite: another process holds the write lock past the busy timeout", async () => {
    db = await createTestDatabase("sqlite");
    const project = await createTestProject(db.url);
    server = await startServer(db.url, { IDEMGATE_SQLITE_BUSY_TIMEOUT_MS: "200" });
    const client = new TestClient(server.baseUrl, project.apiKey);

    const locker = new Database(db.url.slice("file:".length));
    locker.exec("BEGIN IMMEDIATE");
    try {
      const res = await client.raw("POST", "/api/v1/calls/begin", request);
      expect(res.status).toBe(503);
      expect(res.headers.get("retry-after")).toBe("1");
      const body = await res.json();
      expect(body.error).toMatchObject({ code: "store_unavailable", retryable: true });
    } finally {
      locker.exec("ROLLBACK");
      locker.close();
    }
    const retried = await client.begin(request);
    expect(retried.decision).toBe("execute");
    expect(retried.decision === "execute" && retried.attempt).toBe(1);
  });

  it.skipIf(!PROVIDERS.includes("postgres"))("postgres: the database refuses connections", async () => {
    db = await createTestDatabase("postgres");
    const name = new URL(db.url).pathname.slice(1);
    const project = await createTestProject(db.url);
    server = await startServer(db.url);
    const client = new TestClient(server.baseUrl, project.apiKey);
    expect((await client.begin({ ...request, stepId: "warm" })).decision).toBe("execute");

    await adminQuery(`ALTER DATABASE ${name} ALLOW_CONNECTIONS false`);
    await adminQuery(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '${name}'`);
    try {
      const outage = await client.expectError("POST", "/api/v1/calls/begin", request);
      expect(outage.status).toBe(503);
      expect(outage.body.error).toMatchObject({ code: "store_unavailable", retryable: true });
    } finally {
      await adminQuery(`ALTER DATABASE ${name} ALLOW_CONNECTIONS true`);
    }
    const retried = await client.begin(request);
    expect(retried.decision).toBe("execute");
  });
});
