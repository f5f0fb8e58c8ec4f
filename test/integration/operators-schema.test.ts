import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAuth } from "../../lib/auth/auth";
import { SignInFailures } from "../../lib/auth/sign-in-failures";
import { FAILURE_MEMORY_MS, signInDelayMs } from "../../lib/core/sign-in-backoff";
import { type Db, openDb, queryRows } from "../../lib/store/prisma/client";
import { PROVIDERS, type TestDatabase, createTestDatabase } from "../helpers/databases";
import { rawSql } from "../helpers/operator-client";

/**
 * Our Prisma migrations create better-auth's tables (it never migrates anything itself), and it
 * reads and writes them through its Prisma adapter over our client: an account created, signed in
 * and looked up by its session cookie lands in the snake_case columns our schema declares, with
 * UTC timestamps, on both providers. (better-auth also compares the client's data model with what
 * it writes before its first query, and refuses to run on a mismatch.) And the audit log is
 * append-only in the database itself, whatever code runs against it.
 */
describe.each(PROVIDERS)("%s: operator storage", (provider) => {
  let db: TestDatabase;
  let prisma: Db;

  beforeAll(async () => {
    db = await createTestDatabase(provider);
    prisma = openDb({ databaseUrl: db.url });
  });

  afterAll(async () => {
    await prisma?.$disconnect();
    await db?.drop();
  });

  it("better-auth's Prisma adapter creates an account, signs it in and finds its session in our migrated schema", async () => {
    const auth = createAuth({ db: prisma, secret: "x".repeat(40), baseURL: "http://localhost:3000", secureCookies: false, signInPerMinute: 10 });
    const before = Date.now();
    const { user } = await auth.api.signUpEmail({ body: { email: "schema@example.com", password: "correct horse battery", name: "Schema" } });
    const signedIn = await auth.api.signInEmail({ body: { email: "schema@example.com", password: "correct horse battery" }, asResponse: true });
    expect(signedIn.status).toBe(200);
    const cookie = signedIn.headers.getSetCookie().map((c) => c.split(";")[0]).join("; ");
    const session = await auth.api.getSession({ headers: new Headers({ cookie }) });
    expect(session?.user).toMatchObject({ id: user.id, email: "schema@example.com", instanceAdmin: false });

    const [row] = await queryRows(prisma, `SELECT email, email_verified, instance_admin FROM users WHERE id = $1`, [user.id]);
    expect({ email: row!.email, verified: Number(row!.email_verified), admin: Number(row!.instance_admin) }).toEqual({ email: "schema@example.com", verified: 0, admin: 0 });
    const [account] = await queryRows(prisma, `SELECT provider_id, account_id FROM accounts WHERE user_id = $1`, [user.id]);
    expect(account).toMatchObject({ provider_id: "credential", account_id: user.id });
    const stored = await prisma.session.findFirstOrThrow({ where: { userId: user.id } });
    // Eight hours from now, in UTC whatever the process's time zone.
    expect(stored.expiresAt.getTime()).toBeGreaterThanOrEqual(before + 8 * 3600_000 - 60_000);
    expect(stored.expiresAt.getTime()).toBeLessThanOrEqual(Date.now() + 8 * 3600_000 + 60_000);
  });

  it("sessions stored before the Prisma adapter (as better-auth's Kysely adapter wrote them) read back at the same instant", async () => {
    const user = await prisma.user.findFirstOrThrow({ where: { email: "schema@example.com" } });
    // SQLite: ISO text; Postgres: a UTC wall time in timestamp(3).
    const at = provider === "sqlite" ? "'2030-01-02T03:04:05.678Z'" : "'2030-01-02 03:04:05.678'";
    await rawSql(db.url, `INSERT INTO sessions (id, expires_at, token, created_at, updated_at, user_id) VALUES ('ses_legacy', ${at}, 'tok_legacy', ${at}, ${at}, '${user.id}')`);
    const legacy = await prisma.session.findUniqueOrThrow({ where: { token: "tok_legacy" } });
    expect(legacy.expiresAt.getTime()).toBe(Date.UTC(2030, 0, 2, 3, 4, 5, 678));
    expect(await prisma.session.count({ where: { userId: user.id, expiresAt: { gt: new Date(Date.UTC(2030, 0, 1)) } } })).toBe(1);
  });

  it("sign-in failures count up atomically, and start again after an hour without one", async () => {
    const failures = new SignInFailures(prisma);
    const now = 1_790_000_000_000;
    await Promise.all([1, 2, 3, 4, 5, 6].map(() => failures.recordFailure(" Someone@Example.com", now)));
    expect(signInDelayMs(6)).toBeGreaterThan(signInDelayMs(5));
    expect(await failures.blockedUntil("someone@example.com", now)).toBe(now + signInDelayMs(6));
    const later = now + FAILURE_MEMORY_MS + 1;
    for (let i = 0; i < 5; i++) await failures.recordFailure("someone@example.com", later);
    expect(await failures.blockedUntil("someone@example.com", later)).toBe(later + signInDelayMs(5));
    await failures.clear("SOMEONE@example.com");
    expect(await failures.blockedUntil("someone@example.com", later)).toBeNull();
  });

  it("the audit log refuses UPDATE and DELETE", async () => {
    await rawSql(db.url, `INSERT INTO audit_log (id, at, actor_type, action, target_type, target_id) VALUES ('aud_test', 1, 'system', 'test', 'call', 'c')`);
    await expect(rawSql(db.url, `UPDATE audit_log SET action = 'rewritten' WHERE id = 'aud_test'`)).rejects.toThrow(/append-only/);
    await expect(rawSql(db.url, `DELETE FROM audit_log WHERE id = 'aud_test'`)).rejects.toThrow(/append-only/);
  });
});
