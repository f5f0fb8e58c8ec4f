import { createGate } from "../../lib/sdk";
import { createProjectWithKey } from "../../lib/server/operators/projects";
import { benchApp } from "./bench-app";
import { SYSTEM_ACTOR } from "../../lib/server/operators/operator-audit";
import { mkdtempSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { type ChargeUpstream, startChargeUpstream } from "../../test/helpers/charge-upstream";
import { type RunningUpstream, startUpstream } from "../../test/helpers/mcp-upstream";
import { mcpSubjects } from "../cells/mcp";
import { startToolServer } from "../../test/helpers/http-tool-servers";
import { httpGateSubject } from "../cells/http-gate";
import { httpToolsSubjects } from "../cells/http-tools";
import { applyBenchPolicy, benchPolicies } from "../cells/bench-policy";
import { fillReplayPool, inProcessSubject } from "../cells/in-process";
import { nextFloorSubject, nodeHttpFloorSubject } from "../cells/next-floor";
import { durablePeer, peerSubject } from "../cells/peer";
import { pgFloorSubject } from "../cells/pg-floor";
import { sqliteFloorSubject } from "../cells/sqlite-floor";
import { CLIENTS, NO_POSTGRES, type SubjectOrSkip, isSkipped, pairWorkloads, skippedSubject } from "../cells/types";
import type { BenchOptions } from "../options";
import type { BenchDatabases } from "./databases";
import { growthAndStats } from "./growth-stores";
import type { BenchServers, TestServer } from "./servers";
import { startBareHttpServer } from "./bare-http";
import { startDurableRedis } from "./durable-redis";
import { BASELINED, type Baseline } from "./baseline";
// @ts-expect-error plain .mjs helper without types
import { buildIfNeeded } from "../../scripts/lib/build-if-needed.mjs";

export interface BuildContext {
  options: BenchOptions;
  databases: BenchDatabases;
  servers: BenchServers;
  /** The seeded ledgers end here (the stats cells read the 24 hours before). */
  now: number;
  runTag: string;
  log(message: string): void;
  /** `--baseline`: each of our in-process and HTTP subjects gets the baseline's beside it. */
  baseline?: Baseline;
}

export interface Built {
  /** In table order. */
  subjects: SubjectOrSkip[];
  redisVersion?: string;
}

const other = (sync: "full" | "normal"): "full" | "normal" => (sync === "full" ? "normal" : "full");

/** A database with a project and its replay pool, written in-process before any server starts. */
export async function gateDatabase(url: string, pool: { tag: string; size: number }, sqliteSynchronous: "full" | "normal", upstream?: ChargeUpstream, mcpUpstream?: string) {
  const app = benchApp(url, sqliteSynchronous, { IDEMGATE_SECRETS_KEY: BENCH_SECRETS_KEY });
  const { store, policies } = app.gate;
  try {
    const created = await createProjectWithKey(store, "bench");
    if (!created) throw new Error("project id collision");
    await applyBenchPolicy(policies, created.projectId);
    await fillReplayPool(createGate({ inProcess: { store, projectId: created.projectId, policies: benchPolicies } }), pool.tag, pool.size);
    if (upstream) {
      // The HTTP-tools cells' gateway: `/gw/pay/…` in front of the charges API, on the allowlist.
      await app.outbound.allowlist.add(created.projectId, { pattern: `127.0.0.1:${upstream.port}` }, SYSTEM_ACTOR);
      await app.upstreams.service.create(created.projectId, { kind: "http", name: "pay", url: `${upstream.url}/` }, SYSTEM_ACTOR);
    }
    if (mcpUpstream) {
      // The MCP cells' upstream, as an admin would register it (its loopback address allowed).
      await app.outbound.allowlist.add(created.projectId, { pattern: `127.0.0.1:${new URL(mcpUpstream).port}` }, SYSTEM_ACTOR);
      await app.upstreams.service.create(created.projectId, { kind: "mcp", transport: "streamable_http", name: MCP_UPSTREAM, url: mcpUpstream }, SYSTEM_ACTOR);
    }
    return { url, projectId: created.projectId, apiKey: created.apiKey.key };
  } finally {
    await app.close();
  }
}

const MCP_UPSTREAM = "bench-shop";

/** Seals upstream secrets in the seeded database (none is set; fixed so nothing is written to a data dir). */
const BENCH_SECRETS_KEY = Buffer.alloc(32, 7).toString("base64");

/** The peer on a Redis of its own that fsyncs every write; stopped with the subject. */
async function durablePeerSubject(ctx: BuildContext, log: (message: string) => void): Promise<SubjectOrSkip> {
  const fallback = durablePeer("redis://(not started)");
  const skip = (reason: string) => {
    log(`durable peer skipped: ${reason}`);
    return skippedSubject(fallback.id, "peer", fallback.label, reason, pairWorkloads(CLIENTS.withEight, CLIENTS.standard));
  };
  let redis: Awaited<ReturnType<typeof startDurableRedis>>;
  try {
    redis = await startDurableRedis();
  } catch (error) {
    return skip(`no redis-server to start with appendfsync always (${(error as Error).message})`);
  }
  const subject = await peerSubject(ctx.runTag, ctx.options.replayPool, durablePeer(redis.url));
  if (isSkipped(subject)) {
    await redis.stop();
    return subject;
  }
  return {
    ...subject,
    close: async () => {
      await subject.close();
      await redis.stop();
    },
  };
}

type Wants = ReturnType<typeof wants>;

function wants(options: BenchOptions) {
  const sections = options.sections;
  const floorsToo = sections.has("floors") || options.withFloors;
  return {
    // The HTTP bars stack the raw store's pair under the bare route, so HTTP wants the raw floors too.
    floorSqlite: sections.has("floors") || (floorsToo && (sections.has("inprocess") || sections.has("http"))),
    floorPg: sections.has("floors") || (floorsToo && (sections.has("inprocess") || sections.has("http"))),
    floorNext: sections.has("floors") || (floorsToo && (sections.has("http") || sections.has("scaleout"))),
    httptools: sections.has("httptools"),
    mcp: sections.has("mcp"),
    inprocess: sections.has("inprocess"),
    peer: sections.has("peer"),
    sqliteHttp: sections.has("http"),
    /** The scale-out compares two instances with this one. */
    pgHttp: sections.has("http") || sections.has("scaleout"),
    scaleout: sections.has("scaleout"),
    growth: sections.has("growth") || sections.has("stats"),
    stats: sections.has("stats"),
  };
}

interface HttpTarget {
  db: Awaited<ReturnType<typeof gateDatabase>>;
  servers: Promise<TestServer[]>;
}

/** A gate database with its project and replay pool, and its server(s) booting in the background. */
async function startHttpTarget(ctx: BuildContext, url: string, instances: number, upstream?: ChargeUpstream, mcpUpstream?: string): Promise<HttpTarget> {
  const db = await gateDatabase(url, { tag: "http_pool", size: ctx.options.replayPool }, ctx.options.sqliteSynchronous, upstream, mcpUpstream);
  const servers = (async () => {
    const started: TestServer[] = [];
    for (let i = 0; i < instances; i++) started.push(await ctx.servers.launch(url));
    return started;
  })();
  servers.catch(() => undefined); // awaited (and reported) once the stores are seeded
  return { db, servers };
}

async function inProcessSubjects(ctx: BuildContext, pgUp: boolean): Promise<SubjectOrSkip[]> {
  const { databases } = ctx;
  const sync = ctx.options.sqliteSynchronous;
  const subjects: SubjectOrSkip[] = [];
  for (const setting of [sync, other(sync)]) {
    const { store } = benchApp(await databases.sqlite(`inprocess_${setting}`), setting).gate;
    const created = await createProjectWithKey(store, "bench in-process");
    subjects.push(
      inProcessSubject({
        id: `inprocess.sqlite-${setting}`,
        label: `Idemgate in-process · SQLite ${setting.toUpperCase()}${setting === sync ? " (gate setting)" : ""}`,
        floorId: `floor.sqlite-${setting}`,
        store,
        projectId: created!.projectId,
        replayPool: ctx.options.replayPool,
      }),
    );
  }
  const label = "Idemgate in-process · Postgres";
  if (!pgUp) {
    subjects.push(skippedSubject("inprocess.postgres", "inprocess", label, NO_POSTGRES, pairWorkloads(CLIENTS.withEight, CLIENTS.standard), "floor.postgres"));
  } else {
    const { store } = benchApp(await databases.postgres("inprocess")).gate;
    const created = await createProjectWithKey(store, "bench in-process");
    subjects.push(inProcessSubject({ id: "inprocess.postgres", label, floorId: "floor.postgres", store, projectId: created!.projectId, replayPool: ctx.options.replayPool }));
  }
  // #21 item 3: the same store with its commits on a writer thread. Last, so the cells before it run
  // in the order and company they had before it was added (#15's before/after compares them).
  const { store: workerStore } = benchApp(await databases.sqlite(`inprocess_${sync}_worker`), sync, { IDEMGATE_SQLITE_WRITER: "worker" }).gate;
  const workerProject = await createProjectWithKey(workerStore, "bench in-process");
  subjects.push(
    inProcessSubject({
      id: `inprocess.sqlite-${sync}-worker`,
      label: `Idemgate in-process · SQLite ${sync.toUpperCase()}, writer thread`,
      floorId: `floor.sqlite-${sync}`,
      store: workerStore,
      projectId: workerProject!.projectId,
      replayPool: ctx.options.replayPool,
    }),
  );
  return subjects;
}

/** `--baseline`: each of our subjects it has one of followed by the baseline's, so the two alternate in every repetition. */
async function withBaseline(ctx: BuildContext, ours: SubjectOrSkip[], context?: { mcpUpstream?: string }): Promise<SubjectOrSkip[]> {
  if (!ctx.baseline) return ours;
  const both: SubjectOrSkip[] = [];
  for (const subject of ours) {
    both.push(subject);
    if (BASELINED.test(subject.id)) both.push(await ctx.baseline.subjectFor(subject.id, context));
  }
  return both;
}

async function httpSubjects(ctx: BuildContext, want: Wants, sqlite: HttpTarget | undefined, pg: HttpTarget | undefined, pgUp: boolean) {
  const sync = ctx.options.sqliteSynchronous;
  const floors: SubjectOrSkip[] = [];
  const http: SubjectOrSkip[] = [];
  const scaleout: SubjectOrSkip[] = [];
  const standard = { fresh: [...CLIENTS.standard], replay: [...CLIENTS.standard] };
  if (sqlite) {
    const [server] = await sqlite.servers;
    if (want.floorNext) {
      floors.push(nextFloorSubject(server!.baseUrl));
      floors.push(nodeHttpFloorSubject(await startBareHttpServer()));
    }
    if (want.sqliteHttp) {
      const label = `Idemgate HTTP · SQLite ${sync.toUpperCase()} (npm start)`;
      http.push(httpGateSubject({ id: "http.sqlite", group: "http", label, floorId: "floor.next", baseUrls: [server!.baseUrl], apiKey: sqlite.db.apiKey, replayPool: { tag: "http_pool", size: ctx.options.replayPool }, clients: standard }));
    }
  }
  if (want.pgHttp) {
    const label = "Idemgate HTTP · Postgres (npm start)";
    const twoLabel = "Idemgate HTTP · Postgres · 2 instances (round-robin)";
    if (pg) {
      const [first, second] = await pg.servers;
      const common = { apiKey: pg.db.apiKey, replayPool: { tag: "http_pool", size: ctx.options.replayPool } };
      http.push(httpGateSubject({ id: "http.postgres", group: "http", label, floorId: "floor.next", baseUrls: [first!.baseUrl], clients: standard, ...common }));
      if (want.scaleout) {
        scaleout.push(httpGateSubject({ id: "scaleout.postgres-2", group: "scaleout", label: twoLabel, baseUrls: [first!.baseUrl, second!.baseUrl], clients: { fresh: [32], replay: [32] }, ...common }));
      }
    } else if (!pgUp) {
      http.push(skippedSubject("http.postgres", "http", label, NO_POSTGRES, pairWorkloads(CLIENTS.standard, CLIENTS.standard), "floor.next"));
      if (want.scaleout) scaleout.push(skippedSubject("scaleout.postgres-2", "scaleout", twoLabel, NO_POSTGRES, pairWorkloads([32], [32])));
    }
  }
  return { floors, http, scaleout };
}

/**
 * Creates every subject the selected sections need, in table order: floors, in-process, peer,
 * HTTP, scale-out, growth, stats. Postgres subjects are reported skipped without Postgres, the peer
 * without Redis. Slow setup overlaps: the Postgres template migrates while SQLite is set up, the
 * servers boot while the growth stores load.
 */
export async function buildSubjects(ctx: BuildContext): Promise<Built> {
  const { options, databases, log } = ctx;
  const want = wants(options);
  const pgUp = await databases.postgresAvailable();
  if (!pgUp) log(`${NO_POSTGRES}: the Postgres cells are skipped`);
  if (pgUp) databases.migratedPostgresTemplate().catch(() => undefined); // awaited where first needed

  const needSqliteServer = want.floorNext || want.sqliteHttp || want.httptools || want.mcp;
  const needPgServer = pgUp && want.pgHttp;
  if (needSqliteServer || needPgServer) buildIfNeeded();
  let sqliteTarget: HttpTarget | undefined;
  const upstream = want.httptools ? await startChargeUpstream() : undefined;
  const mcpUpstream: RunningUpstream | undefined = want.mcp ? await startUpstream(path.join(mkdtempSync(path.join(os.tmpdir(), "idemgate-bench-mcp-")), "effects.jsonl")) : undefined;
  if (needSqliteServer) {
    log("http: SQLite database, replay pool, server");
    sqliteTarget = await startHttpTarget(ctx, await databases.sqlite("http"), 1, upstream, mcpUpstream?.url);
  }

  const floors: SubjectOrSkip[] = [];
  if (want.floorSqlite) {
    floors.push(sqliteFloorSubject(databases.sqliteFile("floor_normal"), "normal", options.replayPool));
    floors.push(sqliteFloorSubject(databases.sqliteFile("floor_full"), "full", options.replayPool));
  }
  if (want.floorPg) {
    const label = "raw pg (INSERT … ON CONFLICT + UPDATE)";
    floors.push(pgUp ? await pgFloorSubject(await databases.postgresEmpty("floor"), options.replayPool) : skippedSubject("floor.postgres", "floor", label, NO_POSTGRES, pairWorkloads(CLIENTS.withEight, CLIENTS.standard)));
  }

  let redisVersion: string | undefined;
  const peer: SubjectOrSkip[] = [];
  if (want.peer) {
    const subject = await peerSubject(ctx.runTag, options.replayPool);
    redisVersion = subject.redisVersion;
    if ("skipped" in subject) log(`peer skipped: ${subject.skipped}`);
    peer.push(subject);
    peer.push(await durablePeerSubject(ctx, log));
  }

  const inprocess = want.inprocess ? await withBaseline(ctx, await inProcessSubjects(ctx, pgUp)) : [];

  let pgTarget: HttpTarget | undefined;
  if (needPgServer) {
    log("http: Postgres database, replay pool, server(s)");
    pgTarget = await startHttpTarget(ctx, await databases.postgres("http"), want.scaleout ? 2 : 1);
  }

  const { growth, stats } = await growthAndStats(ctx, want.growth, want.stats, pgUp);
  const web = await httpSubjects(ctx, want, sqliteTarget, pgTarget, pgUp);
  const httptools = upstream && sqliteTarget ? await httpToolsTargets(ctx, sqliteTarget, upstream) : [];
  const mcp =
    mcpUpstream && sqliteTarget
      ? await mcpSubjects({ upstreamUrl: mcpUpstream.url, gatewayUrl: `${(await sqliteTarget.servers)[0]!.baseUrl}/mcp/${MCP_UPSTREAM}`, apiKey: sqliteTarget.db.apiKey, replayPool: options.replayPool, stopUpstream: () => mcpUpstream.stop() })
      : [];
  const http = await withBaseline(ctx, web.http);
  const mcpWithBaseline = await withBaseline(ctx, mcp, { mcpUpstream: mcpUpstream?.url });
  return { subjects: [...floors, ...web.floors, ...inprocess, ...peer, ...http, ...web.scaleout, ...growth, ...stats, ...httptools, ...mcpWithBaseline], redisVersion };
}

/** Issue #19's cells: Express tool servers (gate in process, gate over the SQLite server) and the server's /gw. */
async function httpToolsTargets(ctx: BuildContext, target: HttpTarget, upstream: ChargeUpstream): Promise<SubjectOrSkip[]> {
  ctx.log("httptools: tool servers");
  const [server] = await target.servers;
  const { store } = benchApp(await ctx.databases.sqlite("httptools_inprocess"), ctx.options.sqliteSynchronous).gate;
  const created = await createProjectWithKey(store, "bench http tools");
  const inProcessTools = await startToolServer("express", createGate({ inProcess: { store, projectId: created!.projectId, policies: benchPolicies } }));
  const httpTools = await startToolServer("express", createGate({ baseUrl: server!.baseUrl, apiKey: target.db.apiKey }));
  return httpToolsSubjects({
    inProcessTools: inProcessTools.baseUrl,
    httpTools: httpTools.baseUrl,
    upstream: upstream.url,
    gateway: server!.baseUrl,
    apiKey: target.db.apiKey,
    close: async () => {
      await Promise.all([inProcessTools.close(), httpTools.close(), upstream.close()]);
      await store.close();
    },
  });
}
