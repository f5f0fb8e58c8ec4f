import { getMigrations } from "better-auth/db/migration";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { authOptions } from "../../lib/auth/auth";
import { type OperatorDb, openOperatorDb } from "../../lib/store/connection/operator-db";
import { type Db, openDb } from "../../lib/store/prisma/client";
import { PROVIDERS, type TestDatabase, createTestDatabase } from "../helpers/databases";
import { rawSql } from "../helpers/operator-client";

/**
 * Our Prisma migrations create better-auth's tables (it never migrates anything itself): its own
 * migration planner, pointed at a database migrated by us, must find nothing to create or add.
 * And the audit log is append-only in the database itself, whatever code runs against it.
 */
describe.each(PROVIDERS)("%s: operator storage", (provider) => {
  let db: TestDatabase;
  let operatorDb: OperatorDb;
  let prisma: Db;

  beforeAll(async () => {
    db = await createTestDatabase(provider);
    prisma = openDb({ databaseUrl: db.url });
    operatorDb = openOperatorDb({ databaseUrl: db.url }, prisma);
  });

  afterAll(async () => {
    await operatorDb?.close();
    await prisma?.$disconnect();
    await db?.drop();
  });

  it("better-auth finds every table, column and index it needs in our migrated schema", async () => {
    const options = authOptions({ database: operatorDb.auth, secret: "x".repeat(40), secureCookies: false, signInPerMinute: 10 });
    const plan = await getMigrations(options, { throwOnUnsafe: false });
    expect(plan.toBeCreated.map((t) => t.table)).toEqual([]);
    expect(plan.toBeAdded.map((t) => `${t.table}: ${Object.keys(t.fields).join(", ")}`)).toEqual([]);
    expect(plan.toBeAddedIndexes.map((i) => i.name)).toEqual([]);
    expect(plan.schemaProblems).toEqual([]);
  });

  it("the audit log refuses UPDATE and DELETE", async () => {
    await rawSql(db.url, `INSERT INTO audit_log (id, at, actor_type, action, target_type, target_id) VALUES ('aud_test', 1, 'system', 'test', 'call', 'c')`);
    await expect(rawSql(db.url, `UPDATE audit_log SET action = 'rewritten' WHERE id = 'aud_test'`)).rejects.toThrow(/append-only/);
    await expect(rawSql(db.url, `DELETE FROM audit_log WHERE id = 'aud_test'`)).rejects.toThrow(/append-only/);
  });
});
