import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openStore } from "../../lib/store/hot/open-gate-store";
import { StoreUnavailableError, type GateStore } from "../../lib/store/ports/gate-store";
import { type Db, openDb } from "../../lib/store/prisma/client";
import { OperatorRepository } from "../../lib/store/prisma/operator-repository";
import { PolicyRepository } from "../../lib/store/prisma/policy-repository";
import { PROVIDERS, type TestDatabase, createTestDatabase } from "../helpers/databases";
import { adminQuery } from "../helpers/postgres";

const projectId = "proj_repo";
const T0 = 1_790_000_000_000;

/**
 * One repository implementation over both generated clients: what the hot store (raw SQL) wrote,
 * the repository reads back identically on SQLite and Postgres, epoch-ms BigInts as numbers; and a
 * database that cannot serve becomes the retryable StoreUnavailableError (a 503), never a 500.
 */
describe.each(PROVIDERS)("%s: Prisma repositories", (provider) => {
  let db: TestDatabase;
  let gate: GateStore;
  let prisma: Db;

  beforeAll(async () => {
    db = await createTestDatabase(provider);
    gate = openStore({ databaseUrl: db.url });
    prisma = openDb({ databaseUrl: db.url });
    await gate.createProject({ id: projectId, name: "repo", createdAt: T0 });
  });

  afterAll(async () => {
    await prisma?.$disconnect();
    await gate?.close();
    await db?.drop();
  });

  it("reads policy layers and revisions written by the hot store's compare-and-set", async () => {
    const write = { projectId, tool: "send_email", at: T0 + 5, author: "ops@x", reason: "first", before: null, restoredFrom: null };
    const v1 = await gate.writePolicy({ ...write, overrides: `{"ttlSeconds":60}`, expectedVersion: 0, revisionId: "rev_1" });
    const v2 = await gate.writePolicy({ ...write, overrides: `{"ttlSeconds":90}`, expectedVersion: v1!, revisionId: "rev_2", before: `{"ttlSeconds":60}`, at: T0 + 9 });
    await gate.discoverTool(projectId, "lookup", T0 + 1);
    const policies = new PolicyRepository(prisma);

    expect(await policies.listPolicies(projectId)).toEqual([
      { tool: "lookup", overrides: null, version: 0, firstSeenAt: T0 + 1, updatedAt: null, updatedBy: null },
      { tool: "send_email", overrides: `{"ttlSeconds":90}`, version: v2, firstSeenAt: null, updatedAt: T0 + 9, updatedBy: "ops@x" },
    ]);
    expect(await policies.findPolicy(projectId, "nope")).toBeNull();
    const history = await policies.listPolicyRevisions(projectId, "send_email", 10);
    expect(history.map((r) => [r.version, r.before, r.after, r.at])).toEqual([
      [v2, `{"ttlSeconds":60}`, `{"ttlSeconds":90}`, T0 + 9],
      [v1, null, `{"ttlSeconds":60}`, T0 + 5],
    ]);
    expect(await policies.findPolicyRevision(projectId, v1!)).toMatchObject({ id: "rev_1", author: "ops@x", restoredFrom: null });
    expect(await policies.findPolicyRevision("proj_other", v1!)).toBeNull();
  });

  it("appends audit entries and lists API keys newest first, scoped to the project", async () => {
    const operators = new OperatorRepository(prisma);
    for (const [i, project] of [projectId, projectId, "proj_other", projectId].entries()) {
      await operators.appendAudit({
        id: `aud_${i}`, projectId: project, at: T0 + i, actorType: "system", actorId: null, actorLabel: null,
        action: "test.entry", targetType: "call", targetId: `c${i}`, detail: null, ip: null, userAgent: null,
      });
    }
    const stored = await prisma.auditEntry.findMany({ where: { projectId }, orderBy: { id: "desc" }, select: { id: true, at: true } });
    expect(stored).toEqual([{ id: "aud_3", at: BigInt(T0 + 3) }, { id: "aud_1", at: BigInt(T0 + 1) }, { id: "aud_0", at: BigInt(T0) }]);

    await gate.createApiKey({ id: "key_a", projectId, name: "a", prefix: "ig_a", hash: "h_a", createdAt: T0, lastUsedAt: null, revokedAt: null });
    await gate.createApiKey({ id: "key_b", projectId, name: "b", prefix: "ig_b", hash: "h_b", createdAt: T0 + 1, lastUsedAt: null, revokedAt: null });
    await gate.touchApiKey("key_a", T0 + 7);
    expect(await operators.listApiKeys(projectId)).toEqual([
      { id: "key_b", projectId, name: "b", prefix: "ig_b", hash: "h_b", createdAt: T0 + 1, lastUsedAt: null, revokedAt: null },
      { id: "key_a", projectId, name: "a", prefix: "ig_a", hash: "h_a", createdAt: T0, lastUsedAt: T0 + 7, revokedAt: null },
    ]);
    expect(await operators.countUsers()).toBe(0);
  });

  it("a database that cannot serve is the retryable StoreUnavailableError", async () => {
    if (provider === "sqlite") {
      // Another process holds the write lock past the busy timeout.
      const locked = openDb({ databaseUrl: db.url, sqliteBusyTimeoutMs: 50 });
      const locker = new Database(db.url.slice("file:".length));
      locker.exec("BEGIN IMMEDIATE");
      try {
        await expect(new OperatorRepository(locked).setInstanceAdmin("usr_x")).rejects.toBeInstanceOf(StoreUnavailableError);
      } finally {
        locker.exec("ROLLBACK");
        locker.close();
        await locked.$disconnect();
      }
      return;
    }
    const name = new URL(db.url).pathname.slice(1);
    const fresh = openDb({ databaseUrl: db.url });
    await adminQuery(`ALTER DATABASE ${name} ALLOW_CONNECTIONS false`);
    try {
      await expect(new PolicyRepository(fresh).listPolicies(projectId)).rejects.toBeInstanceOf(StoreUnavailableError);
    } finally {
      await adminQuery(`ALTER DATABASE ${name} ALLOW_CONNECTIONS true`);
      await fresh.$disconnect();
    }
  });
});
