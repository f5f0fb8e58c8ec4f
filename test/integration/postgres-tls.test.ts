import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { openStore } from "../../lib/store/hot/open-gate-store";
import { PrismaOperatorStore } from "../../lib/store/prisma/operator-store";
import { openInsightStore } from "../../lib/store/sql/open-insight-store";
import { parseDatabaseUrl } from "../../lib/store/connection/database-url";
import { ensureMigrated } from "../../lib/store/connection/migrate";
import { type TestDatabase, createTestDatabase } from "../helpers/databases";
import { createTestProject } from "../helpers/fixtures";
import { TestClient } from "../helpers/client";
import { expectDecision } from "../helpers/policy-fixtures";
import { startServer } from "../helpers/server";
import { runMigrate } from "../helpers/run-migrate";
import { openDb } from "../../lib/store/prisma/client";

const withParams = (url: string, params: string) => `${url}${url.includes("?") ? "&" : "?"}${params}`;

/**
 * Postgres TLS (issue #16, item 2). The test server refuses SSL, so a URL that asks for TLS must
 * fail on every pool and at start, never fall back to plaintext; `disable` and `prefer` work.
 */
describe.skipIf(!inject("postgresTemplate"))("postgres: TLS settings in DATABASE_URL", () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase("postgres");
  });
  afterAll(async () => {
    await db?.drop();
  });

  it("sslmode=require reaches every pool: the hot path, operators, insights and the migration check all refuse plaintext", async () => {
    const url = withParams(db.url, "sslmode=require");
    const gate = openStore({ databaseUrl: url });
    const prisma = openDb({ databaseUrl: url });
    const operators = new PrismaOperatorStore(prisma);
    const insights = openInsightStore({ databaseUrl: url });
    try {
      await expect(gate.findRecordByKey("proj_x", "k")).rejects.toThrow();
      await expect(operators.findUserById("user_x")).rejects.toThrow(/SSL/i);
      await expect(insights.openStorms("proj_x")).rejects.toThrow();
      await expect(ensureMigrated(parseDatabaseUrl(url))).rejects.toThrow(/SSL/i);
    } finally {
      await Promise.allSettled([gate.close(), insights.close(), prisma.$disconnect()]);
    }
  });

  it.each(["sslmode=require", "sslmode=verify-full", "sslmode=verify-ca&sslrootcert=/etc/ssl/certs/ca-certificates.crt"])(
    "a server started with %s refuses to start, saying why",
    async (params) => {
      const started = startServer(withParams(db.url, params));
      await expect(started).rejects.toThrow(/asks for TLS/);
    },
  );

  it("the migrate command refuses sslmode=require too", async () => {
    const { code, output } = await runMigrate(withParams(db.url, "sslmode=require"));
    expect(code).not.toBe(0);
    expect(output).toMatch(/asks for TLS/);
  });

  it.each(["sslmode=disable", "sslmode=prefer"])("a server started with %s serves begins", async (params) => {
    const project = await createTestProject(db.url);
    const server = await startServer(withParams(db.url, params));
    try {
      const client = new TestClient(server.baseUrl, project.apiKey);
      expectDecision(await client.begin({ tool: "charge_card", runId: `run_${params}`, stepId: "charge" }), "execute");
    } finally {
      await server.stop();
    }
  });
});
