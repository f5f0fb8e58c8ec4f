import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openStore } from "../../lib/store/hot/open-gate-store";
import { StoreUnavailableError, type GateStore } from "../../lib/store/ports/gate-store";
import { type Db, openDb } from "../../lib/store/prisma/client";
import { PrismaOperatorStore } from "../../lib/store/prisma/operator-store";
import { PolicyRepository } from "../../lib/store/prisma/policy-repository";
import { PROVIDERS, type TestDatabase, createTestDatabase } from "../helpers/databases";
import { adminQuery } from "../helpers/postgres";
import { beginEvent } from "../helpers/begin-event";
import type { CallRecord } from "../../lib/core/record";
import type { AuditEntryRow, ResendRequestRow } from "../../lib/store/ports/operator-store";

const projectId = "proj_repo";
const T0 = 1_790_000_000_000;

let audits = 0;
const audit = (action: string, id = `aud_${String(++audits).padStart(6, "0")}`): AuditEntryRow => ({
  id, projectId, at: T0 + audits, actorType: "user", actorId: "usr_ops", actorLabel: "ops@example.com",
  action, targetType: "test", targetId: action, detail: null, ip: null, userAgent: null,
});

const record = (id: string, runId: string, at: number): CallRecord => ({
  id, projectId, key: `key_${id}`, tool: "charge", runId, stepId: null, scope: null, agentId: null, toolCallId: null,
  strategy: "step", argsFingerprint: "fp", args: null, state: "succeeded", attempt: 1, leaseToken: null, leaseExpiresAt: null,
  result: "{}", error: null, replays: 0, firstSeenAt: at, completedAt: at, expiresAt: at + 86_400_000, updatedAt: at,
  version: 1, policyVersion: 1, generation: 1, compensation: null,
});

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

  it.runIf(provider === "sqlite")("commits as durably as the gate: its SQLite connection is synchronous=FULL, or what the install sets", async () => {
    const setting = async (client: Db) => Number(((await client.$queryRawUnsafe("PRAGMA synchronous")) as { synchronous: bigint }[])[0]!.synchronous);
    expect(await setting(prisma)).toBe(2);
    const relaxed = openDb({ databaseUrl: db.url, sqliteSynchronous: "normal" });
    try {
      expect(await setting(relaxed)).toBe(1);
    } finally {
      await relaxed.$disconnect();
    }
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
    const operators = new PrismaOperatorStore(prisma);
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

  it("every audited change commits with its audit entry, and neither when the change does not apply", async () => {
    const operators = new PrismaOperatorStore(prisma);
    await prisma.user.create({ data: { id: "usr_m", name: "M", email: "m@example.com", emailVerified: false, createdAt: new Date(T0), updatedAt: new Date(T0) } });

    const added = audit("member.added");
    await operators.putMember(projectId, "usr_m", "viewer", T0, added);
    await operators.putMember(projectId, "usr_m", "admin", T0 + 1, audit("member.role"));
    expect(await operators.findMember(projectId, "usr_m")).toEqual({ projectId, userId: "usr_m", role: "admin", createdAt: T0, email: "m@example.com", name: "M" });
    expect(await operators.removeMember(projectId, "usr_m", audit("member.removed"))).toBe(true);
    expect(await operators.removeMember(projectId, "usr_m", audit("member.removed.again"))).toBe(false);

    const request: ResendRequestRow = {
      id: "rr_1", projectId, callId: "call_1", tool: "charge", key: "k", argsFingerprint: "fp", args: null, reason: "lost",
      requesterType: "agent", requesterId: "key_1", requesterLabel: "agent key", status: "pending", deciderType: null, deciderId: null,
      deciderLabel: null, note: null, decidedAt: null, expiresAt: T0 + 1000, tokenHash: null, tokenIssuedAt: null, tokenIssuedTo: null,
      usedAt: null, usedCallId: null, createdAt: T0,
    };
    await operators.insertResendRequest(request, audit("resend.requested"));
    expect(await operators.findResendRequest(projectId, "rr_1")).toEqual(request);
    const approval = { status: "approved", deciderType: "user", deciderId: "usr_ops", deciderLabel: "ops", note: "ok", decidedAt: T0 + 10, expiresAt: T0 + 500 } as const;
    expect(await operators.decideResendRequest(projectId, "rr_1", approval, audit("resend.approved"))).toBe(true);
    expect(await operators.decideResendRequest(projectId, "rr_1", { ...approval, status: "denied" }, audit("resend.denied"))).toBe(false);
    expect(await operators.issueResendToken(projectId, "rr_1", "hash_1", "key_1", T0 + 20, audit("resend.token"))).toBe(true);
    expect(await operators.issueResendToken(projectId, "rr_1", "hash_2", "key_1", T0 + 21, audit("resend.token.again"))).toBe(false);
    expect(await operators.consumeResendToken(projectId, "rr_1", T0 + 30, audit("resend.used"))).toBe(true);
    expect(await operators.consumeResendToken(projectId, "rr_1", T0 + 31, audit("resend.used.again"))).toBe(false);
    expect(await operators.findResendRequestByTokenHash(projectId, "hash_1")).toMatchObject({ status: "approved", decidedAt: T0 + 10, tokenIssuedAt: T0 + 20, usedAt: T0 + 30 });

    await operators.createApiKey({ id: "key_c", projectId, name: "c", prefix: "ig_c", hash: "h_c", createdAt: T0, lastUsedAt: null, revokedAt: null }, audit("key.created"));
    expect(await operators.revokeApiKey(projectId, "key_c", T0 + 40, audit("key.revoked"))).toBe(true);
    expect(await operators.revokeApiKey(projectId, "key_c", T0 + 41, audit("key.revoked.again"))).toBe(false);
    expect((await operators.listApiKeys(projectId)).find((k) => k.id === "key_c")?.revokedAt).toBe(T0 + 40);

    const stored = record("call_op", "run_op", T0);
    await gate.insertRecord(stored, beginEvent({ projectId, tool: "charge", at: T0, decision: "execute", key: stored.key, runId: "run_op" }));
    const evicted = { ...stored, state: "released" as const, version: 2, updatedAt: T0 + 50 };
    const event = { ...beginEvent({ projectId, tool: "charge", at: T0 + 50, decision: "evicted", key: stored.key, runId: "run_op" }), type: "operator" as const, callId: stored.id };
    expect(await operators.updateRecordByOperator(evicted, 1, event, audit("call.evicted"))).toBe(true);
    expect(await operators.updateRecordByOperator({ ...evicted, version: 3 }, 1, { ...event, id: `${event.id}_2` }, audit("call.evicted.again"))).toBe(false);
    expect(await gate.findRecordByKey(projectId, stored.key)).toEqual(evicted);
    expect((await operators.listCallEvents(projectId, stored.id, 10)).map((e) => e.decision)).toEqual(["evicted"]);

    // Same transaction: an audit entry that cannot be written takes its change with it.
    const taken = audit("member.added.duplicate", added.id);
    await expect(operators.putMember(projectId, "usr_m", "operator", T0 + 60, taken)).rejects.toThrow();
    expect(await operators.findMember(projectId, "usr_m")).toBeNull();

    const actions = (await operators.listAudit(projectId, { limit: 500 })).filter((a) => a.targetType === "test").map((a) => a.action).reverse();
    expect(actions).toEqual(["member.added", "member.role", "member.removed", "resend.requested", "resend.approved", "resend.token", "resend.used", "key.created", "key.revoked", "call.evicted"]);
    expect((await operators.listAudit(projectId, { limit: 10 }, { action: "resend." })).map((a) => a.action)).toEqual(["resend.used", "resend.token", "resend.approved", "resend.requested"]);
  });

  it("the explorer's shared SQL runs through the client on both dialects (repeated and positional parameters)", async () => {
    const operators = new PrismaOperatorStore(prisma);
    for (const [i, run] of ["run_list_a", "run_list_a", "run_list_b"].entries()) {
      const r = record(`call_list_${i}`, run, T0 + 1000 + i);
      await gate.insertRecord(r, { ...beginEvent({ projectId, tool: "charge", at: T0 + 1000 + i, decision: "execute", key: r.key, runId: run }), callId: r.id });
    }
    const newest = { column: "firstSeen", dir: "desc" } as const;
    const first = await operators.listCalls(projectId, { runId: "run_list_a" }, { limit: 1, sort: newest });
    expect(first.map((c) => [c.id, c.lastDecision, c.firstSeenAt])).toEqual([["call_list_1", "execute", T0 + 1001]]);
    const next = await operators.listCalls(projectId, { runId: "run_list_a" }, { limit: 5, sort: newest, after: { value: T0 + 1001, id: "call_list_1" } });
    expect(next.map((c) => c.id)).toEqual(["call_list_0"]);
    // A sort by a nullable text column with a positional value: every dialect takes the keyset.
    const byAgent = await operators.listCalls(projectId, { runId: "run_list_a" }, { limit: 5, sort: { column: "agent", dir: "asc" }, after: { value: null, id: "call_list_0" } });
    expect(byAgent.map((c) => c.id)).toEqual(["call_list_1"]);
    const runs = await operators.listRuns(projectId, { limit: 5, sort: { column: "started", dir: "desc" } }, { runIdPrefix: "run_list_" });
    expect(runs.map((r) => [r.runId, r.calls, r.begins, r.succeeded])).toEqual([["run_list_b", 1, 1, 1], ["run_list_a", 2, 2, 2]]);
    // A sort on a count: computed per run in one statement, the same on both dialects.
    const byCalls = await operators.listRuns(projectId, { limit: 5, sort: { column: "calls", dir: "asc" } }, { runIdPrefix: "run_list_" });
    expect(byCalls.map((r) => [r.runId, r.sortValue])).toEqual([["run_list_b", 1], ["run_list_a", 2]]);
    const past = await operators.listRuns(projectId, { limit: 5, sort: { column: "calls", dir: "asc" }, after: { value: 1, id: byCalls[0]!.firstCallId } }, { runIdPrefix: "run_list_" });
    expect(past.map((r) => r.runId)).toEqual(["run_list_a"]);
  });

  it("audited transactions never stall the hot path's connection (SQLite: one event-loop turn each)", async () => {
    // The hot store waits for SQLite's write lock synchronously; a transaction left open across
    // turns would make it fail after its (short, here) busy timeout.
    const hot = openStore({ databaseUrl: db.url, sqliteBusyTimeoutMs: 200 });
    const operators = new PrismaOperatorStore(prisma);
    try {
      const work: Promise<unknown>[] = [];
      for (let i = 0; i < 40; i++) {
        const r = record(`call_mix_${i}`, "run_mix", T0 + 2000 + i);
        work.push(hot.insertRecord(r, { ...beginEvent({ projectId, tool: "charge", at: T0 + 2000 + i, decision: "execute", key: r.key, runId: "run_mix" }), callId: r.id }));
        work.push(operators.createApiKey({ id: `key_mix_${i}`, projectId, name: "m", prefix: "ig_m", hash: `h_mix_${i}`, createdAt: T0, lastUsedAt: null, revokedAt: null }, audit("key.created")));
      }
      const results = await Promise.allSettled(work);
      expect(results.filter((r) => r.status === "rejected")).toEqual([]);
    } finally {
      await hot.close();
    }
  });

  it("a database that cannot serve is the retryable StoreUnavailableError", async () => {
    if (provider === "sqlite") {
      // Another process holds the write lock past the busy timeout.
      const locked = openDb({ databaseUrl: db.url, sqliteBusyTimeoutMs: 50 });
      const locker = new Database(db.url.slice("file:".length));
      locker.exec("BEGIN IMMEDIATE");
      try {
        await expect(new PrismaOperatorStore(locked).setInstanceAdmin("usr_x")).rejects.toBeInstanceOf(StoreUnavailableError);
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
