import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { McpSessions } from "../../lib/server/gateways/mcp/mcp-sessions";
import { McpSessionRepository } from "../../lib/store/prisma/mcp-session-repository";
import { type Db, openDb } from "../../lib/store/prisma/client";
import { PROVIDERS, type TestDatabase, createTestDatabase } from "../helpers/databases";

describe.each(PROVIDERS)("%s: MCP sessions in the database", (provider) => {
  let db: TestDatabase;
  let prisma: Db;
  let now = Date.UTC(2026, 10, 25);
  let sessions: McpSessions;

  beforeAll(async () => {
    db = await createTestDatabase(provider);
    prisma = openDb({ databaseUrl: db.url });
    sessions = new McpSessions(new McpSessionRepository(prisma), () => now);
  });
  afterAll(async () => {
    await prisma?.$disconnect();
    await db?.drop();
  });

  it("a session is found by its project and upstream only, lives while used, and is purged once idle a day", async () => {
    const input = { projectId: "proj_a", upstream: "shop", apiKeyId: "key_1", protocolVersion: "2025-06-18", clientName: "test" };
    const busy = await sessions.open(input);
    const idle = await sessions.open(input);
    expect(busy).toMatch(/^mcps_/);
    expect(await sessions.find(busy, "proj_a", "shop")).toMatchObject({ apiKeyId: "key_1", clientName: "test" });
    expect(await sessions.find(busy, "proj_b", "shop")).toBeNull();
    expect(await sessions.find(busy, "proj_a", "other")).toBeNull();

    now += 20 * 3_600_000;
    expect(await sessions.find(busy, "proj_a", "shop")).not.toBeNull(); // used: another day from now
    now += 5 * 3_600_000;
    expect(await sessions.find(idle, "proj_a", "shop")).toBeNull();
    expect(await sessions.purgeExpired()).toBe(1);
    expect(await sessions.find(busy, "proj_a", "shop")).not.toBeNull();

    expect(await sessions.end("proj_a", busy)).toBe(true);
    expect(await sessions.find(busy, "proj_a", "shop")).toBeNull();
  });
});
