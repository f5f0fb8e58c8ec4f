/**
 * Why the hot path stayed hand-written SQL while all CRUD moved to Prisma Client: the gate's hot
 * statements through the hot store (lib/store/hot, what the app runs) against the same work through
 * the app's Prisma Client (Services.db), on the same database, one client, sequential.
 *
 *   npx tsx bench/orm-vs-raw.ts [--ops 500]
 *
 * Per provider (a SQLite file with synchronous=FULL like the gate's default, and Postgres from
 * TEST_POSTGRES_URL when reachable), after WARMUP operations of each kind:
 *
 * - claim: a new record and its begin event, atomically. Raw: GateStore.insertRecord (SQLite: two
 *   statements in one group-committed transaction; Postgres: one data-modifying CTE). ORM: the batch
 *   `$transaction([callRecord.create, event.create])` (a duplicate key fails the batch with P2002
 *   where the store answers false; otherwise the same effect).
 * - replay read: the record under (project, key), mapped to the domain CallRecord. Raw:
 *   GateStore.findRecordByKey. ORM: `callRecord.findUnique({ where: { projectId_key } })`.
 * - complete: compare-and-set on (project, key, version) plus the complete event. Raw:
 *   GateStore.updateRecord (the event is written only when the CAS applied). ORM, two ways: the
 *   batch `$transaction([callRecord.updateMany, event.create])`, which writes the event even when the
 *   CAS missed (not equivalent: checked below), and the interactive `$transaction(async tx => …)`
 *   that reads the count before inserting the event (equivalent, one more round trip on Postgres).
 *
 * Raw and ORM operations alternate (the machine is shared: both sides see the same load). The
 * templates are a real record and events written by the gate itself (InProcessTransport begin +
 * complete), copied with fresh ids and keys. Nothing is written into the checkout: SQLite files
 * and the data dir live in a temporary directory, the Postgres database (idemgate_ormbench_*) is
 * dropped at the end.
 */
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { randomBytes } from "node:crypto";
import type { CallRecord } from "../lib/core/record";
import { InProcessTransport } from "../lib/sdk";
import { newId } from "../lib/server/ids";
import { createProjectWithKey } from "../lib/server/operators/projects";
import { parseDatabaseUrl } from "../lib/store/connection/database-url";
import { ensureMigrated } from "../lib/store/connection/migrate";
import type { Db } from "../lib/store/prisma/client";
import { fromStoredRecord, recordChanges, toStoredEvent } from "../lib/store/prisma/stored-rows";
import type { GateEvent, GateStore } from "../lib/store/ports/gate-store";
import { adminQuery, postgresAvailable, postgresUrlFor } from "../test/helpers/postgres";
import { benchPolicies } from "./cells/bench-policy";
import { SEED_ARGS, SEED_TOOL } from "./setup/seed";
import { benchApp } from "./setup/bench-app";
import { BenchDatabases } from "./setup/databases";
import { quantile } from "./stats";
import { markdownTable } from "./table";

const args = process.argv.slice(2);
const opsAt = args.indexOf("--ops");
/** Measured operations of each kind per side. Every write is an fsync'd commit, so keep it modest: the machine is shared. */
const OPS = opsAt >= 0 ? Number(args[opsAt + 1]) : 500;
if (!Number.isInteger(OPS) || OPS < 1) throw new Error(`--ops: a positive integer, not ${args[opsAt + 1]}`);
/** Untimed operations of each kind per side first: the JIT, the statement caches, Prisma's query plans. */
const WARMUP = 100;

// ---------------------------------------------------------------------------------------------
// The operations.

interface Templates {
  projectId: string;
  /** The record as the begin claimed it (in_progress), and its begin event. */
  claimed: CallRecord;
  begin: GateEvent;
  /** The same record once completed, and the complete event. */
  completed: CallRecord;
  complete: GateEvent;
}

/** One call written by the gate itself: a begin, read back, then its complete, read back. */
async function templates(store: GateStore): Promise<Templates> {
  const created = await createProjectWithKey(store, "bench orm-vs-raw");
  if (!created) throw new Error("project id collision");
  const { projectId } = created;
  const transport = new InProcessTransport({ store, projectId, policies: benchPolicies });
  const claim = await transport.begin({ tool: SEED_TOOL, runId: "ormbench_run", stepId: "template", args: SEED_ARGS });
  if (claim.decision !== "execute") throw new Error(`template begin: ${claim.decision}`);
  const claimed = await store.findRecordById(projectId, claim.callId);
  await transport.complete(claim.callId, { leaseToken: claim.leaseToken, outcome: "succeeded", result: { ok: true } });
  const completed = await store.findRecordById(projectId, claim.callId);
  const events = await store.listEventsForCall(projectId, claim.callId);
  const begin = events.find((e) => e.type === "begin");
  const complete = events.find((e) => e.type === "complete");
  if (!claimed || !completed || !begin || !complete) throw new Error("template record or events not found");
  if (completed.version <= claimed.version) throw new Error(`template versions: ${claimed.version} → ${completed.version}`);
  return { projectId, claimed, begin, completed, complete };
}

/** A fresh claim: the template's record and begin event under a new id and key. */
function freshClaim(t: Templates, key: string): { record: CallRecord; event: GateEvent } {
  const now = Date.now();
  const id = newId("call", now);
  const record: CallRecord = { ...t.claimed, id, key, firstSeenAt: now, updatedAt: now, leaseExpiresAt: now + 60_000, expiresAt: now + 86_400_000 };
  return { record, event: { ...t.begin, id: newId("evt", now), callId: id, key, at: now } };
}

/** The claim's complete at `fromVersion`: the template's completed columns over the claim's own. */
function completion(t: Templates, claim: CallRecord, fromVersion: number): { record: CallRecord; event: GateEvent } {
  const now = Date.now();
  const record: CallRecord = {
    ...t.completed,
    id: claim.id,
    key: claim.key,
    firstSeenAt: claim.firstSeenAt,
    leaseToken: claim.leaseToken,
    completedAt: now,
    updatedAt: now,
    expiresAt: claim.expiresAt,
    version: fromVersion + (t.completed.version - t.claimed.version),
  };
  return { record, event: { ...t.complete, id: newId("evt", now), callId: claim.id, key: claim.key, at: now } };
}

function isUniqueViolation(error: unknown): boolean {
  return typeof error === "object" && error !== null && (error as { code?: unknown }).code === "P2002";
}

const raw = {
  claim: async (store: GateStore, c: { record: CallRecord; event: GateEvent }) => {
    if (!(await store.insertRecord(c.record, c.event))) throw new Error(`raw claim ${c.record.key}: not claimed`);
  },
  read: async (store: GateStore, projectId: string, key: string, id: string) => {
    const record = await store.findRecordByKey(projectId, key);
    if (record?.id !== id || record.state !== "succeeded") throw new Error(`raw read ${key}: ${record?.id}/${record?.state}`);
  },
  complete: async (store: GateStore, c: { record: CallRecord; event: GateEvent }, expected: number) => {
    if (!(await store.updateRecord(c.record, expected, c.event))) throw new Error(`raw complete ${c.record.key}: CAS missed`);
  },
};

/** The CAS's where clause: the store's own (project, key, version). */
const casWhere = (r: CallRecord, expected: number) => ({ projectId: r.projectId, key: r.key, version: expected });

const orm = {
  claim: async (db: Db, c: { record: CallRecord; event: GateEvent }) => {
    const [record, event] = await db.$transaction([db.callRecord.create({ data: c.record }), db.event.create({ data: toStoredEvent(c.event) })]);
    if (record.id !== c.record.id || event.id !== c.event.id) throw new Error(`orm claim ${c.record.key}: wrote ${record.id}/${event.id}`);
  },
  read: async (db: Db, projectId: string, key: string, id: string) => {
    const row = await db.callRecord.findUnique({ where: { projectId_key: { projectId, key } } });
    const record = row ? fromStoredRecord(row) : null;
    if (record?.id !== id || record.state !== "succeeded") throw new Error(`orm read ${key}: ${record?.id}/${record?.state}`);
  },
  /** Not the store's semantics: the event is inserted whatever the CAS's count. */
  completeBatch: async (db: Db, c: { record: CallRecord; event: GateEvent }, expected: number) => {
    const [updated] = await db.$transaction([
      db.callRecord.updateMany({ where: casWhere(c.record, expected), data: recordChanges(c.record) }),
      db.event.create({ data: toStoredEvent(c.event) }),
    ]);
    if (updated.count !== 1) throw new Error(`orm complete (batch) ${c.record.key}: CAS count ${updated.count}`);
  },
  /** The store's semantics: the event only when the CAS applied. */
  completeInteractive: async (db: Db, c: { record: CallRecord; event: GateEvent }, expected: number) => {
    const written = await db.$transaction(async (tx) => {
      const { count } = await tx.callRecord.updateMany({ where: casWhere(c.record, expected), data: recordChanges(c.record) });
      if (count === 0) return false;
      await tx.event.create({ data: toStoredEvent(c.event) });
      return true;
    });
    if (!written) throw new Error(`orm complete (interactive) ${c.record.key}: CAS missed`);
  },
};

// ---------------------------------------------------------------------------------------------
// Timing: raw and ORM alternate, which one goes first alternating too.

interface Side {
  /** µs per operation, measured ones only. */
  us: number[];
}

async function alternate(count: number, rawOp: (i: number) => Promise<void>, ormOp: (i: number) => Promise<void>): Promise<{ raw: Side; orm: Side }> {
  const sides = { raw: { us: [] as number[] }, orm: { us: [] as number[] } };
  const timed = async (side: Side, op: () => Promise<void>, measured: boolean) => {
    const t0 = performance.now();
    await op();
    if (measured) side.us.push((performance.now() - t0) * 1_000);
  };
  for (let i = 0; i < WARMUP + count; i++) {
    const measured = i >= WARMUP;
    if (i % 2 === 0) {
      await timed(sides.raw, () => rawOp(i), measured);
      await timed(sides.orm, () => ormOp(i), measured);
    } else {
      await timed(sides.orm, () => ormOp(i), measured);
      await timed(sides.raw, () => rawOp(i), measured);
    }
  }
  return sides;
}

interface Row {
  op: string;
  raw: Side;
  orm: Side;
}

function p50(side: Side): number {
  return quantile(Float64Array.from(side.us).sort(), 0.5);
}

function opsPerSecond(side: Side): number {
  return side.us.length / (side.us.reduce((a, b) => a + b, 0) / 1e6);
}

function table(rows: Row[]): string {
  const us = (n: number) => Math.round(n).toLocaleString("en");
  return markdownTable(
    ["op", "raw p50 µs", "ORM p50 µs", "ORM/raw", "raw ops/s", "ORM ops/s"],
    rows.map((r) => [r.op, us(p50(r.raw)), us(p50(r.orm)), `${(p50(r.orm) / p50(r.raw)).toFixed(2)}×`, us(opsPerSecond(r.raw)), us(opsPerSecond(r.orm))]),
    [false, true, true, true, true, true],
  );
}

// ---------------------------------------------------------------------------------------------

async function runProvider(label: string, databaseUrl: string, dataDir: string): Promise<void> {
  // The gate's services pull in the operators' (better-auth): their secret and data dir kept out of the checkout.
  const app = benchApp(databaseUrl, "full", {
    IDEMGATE_DATA_DIR: dataDir,
    BETTER_AUTH_SECRET: randomBytes(32).toString("base64url"),
    BETTER_AUTH_URL: "http://127.0.0.1:3000",
  });
  try {
    const { store } = app.gate;
    const db = app.db;
    const t = await templates(store);
    const notes: string[] = [];
    if (store.provider === "sqlite") {
      // Like for like: the app's Prisma connection commits as the gate's durable writes do (client.ts).
      const opened = Number((await db.$queryRawUnsafe<{ synchronous: unknown }[]>("PRAGMA synchronous"))[0]?.synchronous);
      if (opened !== 2) throw new Error(`Prisma's connection: synchronous=${opened}, not 2 (FULL)`);
    }

    const n = WARMUP + OPS;
    const rawClaims: CallRecord[] = [];
    const ormClaims: CallRecord[] = [];
    const tag = randomBytes(3).toString("hex");
    const claim = await alternate(
      OPS,
      async (i) => {
        const c = freshClaim(t, `ormbench:${tag}:raw:${i}`);
        await raw.claim(store, c);
        rawClaims.push(c.record);
      },
      async (i) => {
        const c = freshClaim(t, `ormbench:${tag}:orm:${i}`);
        await orm.claim(db, c);
        ormClaims.push(c.record);
      },
    );
    if (rawClaims.length !== n || ormClaims.length !== n) throw new Error("claims missing");

    const complete = await alternate(
      OPS,
      (i) => raw.complete(store, completion(t, rawClaims[i]!, rawClaims[i]!.version), rawClaims[i]!.version),
      (i) => orm.completeBatch(db, completion(t, ormClaims[i]!, ormClaims[i]!.version), ormClaims[i]!.version),
    );
    // The interactive form on the ORM's records, from the version the batch left: the same CAS.
    const step = t.completed.version - t.claimed.version;
    const interactive = await alternate(
      OPS,
      (i) => {
        const from = rawClaims[i]!.version + step;
        return raw.complete(store, completion(t, rawClaims[i]!, from), from);
      },
      (i) => {
        const from = ormClaims[i]!.version + step;
        return orm.completeInteractive(db, completion(t, ormClaims[i]!, from), from);
      },
    );

    // Reads of completed records, both sides over the same keys (the raw side's), spread over them.
    const STRIDE = 7_919;
    const keyAt = (i: number) => rawClaims[(i * STRIDE) % n]!;
    const read = await alternate(
      OPS,
      (i) => raw.read(store, t.projectId, keyAt(i).key, keyAt(i).id),
      (i) => orm.read(db, t.projectId, keyAt(i).key, keyAt(i).id),
    );

    notes.push(...(await semantics(store, db, t, rawClaims[0]!, ormClaims[0]!)));

    console.log(`\n### ${label}\n`);
    console.log(
      table([
        { op: "claim (ORM: batch $transaction)", raw: claim.raw, orm: claim.orm },
        { op: "replay read (ORM: findUnique)", raw: read.raw, orm: read.orm },
        { op: "complete (ORM: batch $transaction)", raw: complete.raw, orm: complete.orm },
        { op: "complete (ORM: interactive $transaction)", raw: interactive.raw, orm: interactive.orm },
      ]),
    );
    console.log("");
    for (const note of notes) console.log(`- ${note}`);
  } finally {
    await app.close();
  }
}

/**
 * Once, untimed: what each side does when it loses. A claim on a taken key, and a complete whose
 * CAS misses (its version is stale): the store answers false and writes nothing; Prisma's batch
 * fails the claim with P2002 but writes the complete's event anyway.
 */
async function semantics(store: GateStore, db: Db, t: Templates, rawClaim: CallRecord, ormClaim: CallRecord): Promise<string[]> {
  const notes: string[] = [];
  const dup = freshClaim(t, rawClaim.key);
  if (await store.insertRecord(dup.record, dup.event)) throw new Error("raw claim on a taken key answered true");
  const dupOrm = freshClaim(t, ormClaim.key);
  try {
    await orm.claim(db, dupOrm);
    throw new Error("orm claim on a taken key succeeded");
  } catch (error) {
    if (!isUniqueViolation(error)) throw error;
  }
  if ((await db.event.count({ where: { id: { in: [dup.event.id, dupOrm.event.id] } } })) !== 0) throw new Error("a lost claim left its event");
  notes.push("claim on a taken key: raw answers false; Prisma's batch throws P2002 (caught) — neither writes its event");

  const stale = t.claimed.version; // both records have moved on twice since
  const rawStale = completion(t, rawClaim, stale);
  if (await store.updateRecord(rawStale.record, stale, rawStale.event)) throw new Error("raw CAS on a stale version applied");
  const ormStale = completion(t, ormClaim, stale);
  const [updated] = await db.$transaction([
    db.callRecord.updateMany({ where: casWhere(ormStale.record, stale), data: recordChanges(ormStale.record) }),
    db.event.create({ data: toStoredEvent(ormStale.event) }),
  ]);
  if (updated.count !== 0) throw new Error("orm CAS on a stale version applied");
  const rawOrphans = await db.event.count({ where: { id: rawStale.event.id } });
  const ormOrphans = await db.event.count({ where: { id: ormStale.event.id } });
  if (rawOrphans !== 0) throw new Error("raw lost CAS wrote its event");
  const interactive = completion(t, ormClaim, stale);
  const wrote = await db.$transaction(async (tx) => {
    const { count } = await tx.callRecord.updateMany({ where: casWhere(interactive.record, stale), data: recordChanges(interactive.record) });
    if (count === 0) return false;
    await tx.event.create({ data: toStoredEvent(interactive.event) });
    return true;
  });
  if (wrote || (await db.event.count({ where: { id: interactive.event.id } })) !== 0) throw new Error("interactive lost CAS wrote");
  notes.push(
    `complete with a stale version: raw answers false and writes no event; Prisma's batch updates 0 rows but ${ormOrphans === 1 ? "commits the event anyway (an orphan complete in the ledger)" : "wrote no event"}; the interactive form writes nothing`,
  );
  return notes;
}

async function main(): Promise<void> {
  const tmpRoot = mkdtempSync(path.join(os.tmpdir(), "idemgate-ormbench-"));
  const databases = new BenchDatabases(tmpRoot);
  let pgDatabase: string | null = null;
  const [one, five, fifteen] = os.loadavg();
  console.log(
    `orm-vs-raw: ${new Date().toISOString()}, ${os.cpus().length} CPUs, load average ${one!.toFixed(2)} ${five!.toFixed(2)} ${fifteen!.toFixed(2)}, node ${process.version}`,
  );
  console.log(`1 client, sequential, raw and ORM alternating; ${WARMUP} warm-up + ${OPS} measured operations each`);
  try {
    await runProvider("SQLite (synchronous=FULL)", await databases.sqlite("ormbench"), tmpRoot);
    if (await postgresAvailable()) {
      pgDatabase = `idemgate_ormbench_${process.pid.toString(36)}${randomBytes(3).toString("hex")}`;
      await adminQuery(`CREATE DATABASE ${pgDatabase}`);
      const url = postgresUrlFor(pgDatabase);
      await ensureMigrated(parseDatabaseUrl(url));
      await runProvider("Postgres", url, tmpRoot);
    } else {
      console.log("\n### Postgres\n\nskipped: not reachable at TEST_POSTGRES_URL");
    }
  } finally {
    await databases.dropAll();
    if (pgDatabase) {
      await adminQuery(`DROP DATABASE IF EXISTS ${pgDatabase} WITH (FORCE)`).catch((error) => console.error(`could not drop ${pgDatabase}: ${(error as Error).message}`));
    }
    rmSync(tmpRoot, { recursive: true, force: true });
  }
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
