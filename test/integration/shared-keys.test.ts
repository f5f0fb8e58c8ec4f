import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PROVIDERS, type TestDatabase, createTestDatabase } from "../helpers/databases";
import { SHARED_KEYS_ENV } from "../helpers/launch-server";
import { type TestServer, startServer } from "../helpers/server";
import { sql } from "../helpers/sql";

const OTHER_SECRETS_KEY = Buffer.alloc(32, 0x11).toString("base64");

/**
 * Instances on one database must share IDEMGATE_SECRETS_KEY and BETTER_AUTH_SECRET: unset, each
 * generates its own into its data directory, and then one cannot open what another sealed (an
 * alert stalled when the instance without the channel's key claimed it). The first instance records
 * a check of each key; an instance whose key differs refuses to start and names the setting.
 */
describe.each(PROVIDERS)("%s: keys shared by the instances on one database", (provider) => {
  let db: TestDatabase;
  let first: TestServer;

  beforeAll(async () => {
    db = await createTestDatabase(provider);
    first = await startServer(db.url);
  });

  afterAll(async () => {
    await first?.stop();
    await db?.drop();
  });

  it("the first instance records a check of each key, never the key itself", async () => {
    const rows = await sql<{ name: string; value: string }>(db.url, "SELECT name, value FROM install_secrets WHERE name LIKE 'key-check:%' ORDER BY name");
    expect(rows.map((row) => row.name)).toEqual(["key-check:BETTER_AUTH_SECRET", "key-check:IDEMGATE_SECRETS_KEY"]);
    for (const row of rows) {
      expect(row.value).toMatch(/^[0-9a-f]{64}$/);
      expect(row.value).not.toContain(Buffer.from(SHARED_KEYS_ENV.IDEMGATE_SECRETS_KEY, "base64").toString("hex"));
    }
  });

  it("an instance with another IDEMGATE_SECRETS_KEY refuses to start, saying which setting differs", async () => {
    const started = startServer(db.url, { IDEMGATE_SECRETS_KEY: OTHER_SECRETS_KEY });
    await expect(started).rejects.toThrow(/exited early[\s\S]*IDEMGATE_SECRETS_KEY differs from the one this database's other instances use/);
  });

  it("an instance with another BETTER_AUTH_SECRET refuses to start, saying which setting differs", async () => {
    const started = startServer(db.url, { BETTER_AUTH_SECRET: "another-secret-for-this-database-0123456789" });
    await expect(started).rejects.toThrow(/exited early[\s\S]*BETTER_AUTH_SECRET differs/);
  });

  it("an instance with the same keys starts beside the first, and the first goes on serving", async () => {
    const second = await startServer(db.url);
    try {
      for (const server of [first, second]) expect((await fetch(`${server.baseUrl}/api/livez`)).status).toBe(200);
    } finally {
      await second.stop();
    }
  });
});
