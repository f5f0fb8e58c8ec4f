import { existsSync, mkdirSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import type { Gate } from "../../lib/sdk";
import type { GateStore } from "../../lib/store/ports/gate-store";
import { httpGateSubject } from "../cells/http-gate";
import { mcpGatewaySubject } from "../cells/mcp";
import type { InProcessOptions } from "../cells/in-process";
import { CLIENTS, NO_POSTGRES, type Subject, type SubjectOrSkip, type WorkloadShape, pairWorkloads, skippedSubject } from "../cells/types";
import { BenchDatabases } from "./databases";
import type { BenchServers } from "./servers";

/**
 * The subjects of another Idemgate checkout (`--baseline DIR`, e.g. a worktree of the commit
 * before a change), built from that checkout's own code, migrations and production build, so the
 * before and the after are measured in one run, interleaved, on the same machine minute: the
 * in-process cells in this process, the HTTP cells against a server of its own build.
 *
 * Only public seams are used — the SDK's in-process cell and `createGate`, `createProjectWithKey`,
 * the bench policy, and however that checkout opens its gate store (the composition root's
 * `benchApp` where it has one, the older `openStore` before it) — so any commit since the bench
 * cells existed can be the baseline.
 */
export interface Baseline {
  /**
   * The baseline's subject beside the one of ours with this id (see BASELINED), or its skip;
   * `mcpUpstream` is the upstream the MCP cells call (the baseline's gateway fronts the same one).
   */
  subjectFor(ours: string, context?: { mcpUpstream?: string }): Promise<SubjectOrSkip>;
  dropAll(): Promise<void>;
}

/** Our subjects that get the baseline's beside them. */
export const BASELINED = /^(inprocess\.(sqlite-(full|normal)|postgres)|http\.(sqlite|postgres)|mcp\.sqlite)$/;

interface Opened {
  store: GateStore;
  /** The tool policy the bench runs every project with (bench-policy.ts). */
  applyBenchPolicy(projectId: string): Promise<void>;
  close(): Promise<void>;
}

interface BaselineModules {
  inProcessSubject(options: InProcessOptions): Subject;
  fillReplayPool(gate: Gate, tag: string, size: number): Promise<void>;
  createGate(options: { inProcess: { store: GateStore; projectId: string; policies: unknown } }): Gate;
  benchPolicies: unknown;
  createProjectWithKey(store: GateStore, name: string): Promise<{ projectId: string; apiKey: { key: string } } | null>;
  open(url: string, sqliteSynchronous?: "full" | "normal"): Opened;
}

const load = (dir: string, file: string) => import(pathToFileURL(path.join(dir, file)).href);

async function loadModules(dir: string): Promise<BaselineModules> {
  const { inProcessSubject, fillReplayPool } = await load(dir, "bench/cells/in-process.ts");
  const { applyBenchPolicy, benchPolicies } = await load(dir, "bench/cells/bench-policy.ts");
  const { createGate } = await load(dir, "lib/sdk/index.ts");
  // lib/server/operators/ since lib/server was grouped by feature; lib/server/ before.
  const projects = ["lib/server/operators/projects.ts", "lib/server/projects.ts"].find((file) => existsSync(path.join(dir, file)))!;
  const { createProjectWithKey } = await load(dir, projects);
  const common = { inProcessSubject, fillReplayPool, createGate, benchPolicies, createProjectWithKey };
  if (existsSync(path.join(dir, "bench/setup/bench-app.ts"))) {
    const { benchApp } = await load(dir, "bench/setup/bench-app.ts");
    return {
      ...common,
      open: (url, sync) => {
        const app = benchApp(url, sync);
        return { store: app.gate.store, applyBenchPolicy: (projectId) => applyBenchPolicy(app.gate.policies, projectId), close: () => app.close() };
      },
    };
  }
  const { openStore } = await load(dir, "lib/store/hot/open-gate-store.ts");
  return {
    ...common,
    open: (url, sync) => {
      const store: GateStore = openStore({ databaseUrl: url, sqliteSynchronous: sync });
      return { store, applyBenchPolicy: (projectId) => applyBenchPolicy(store, projectId), close: () => store.close() };
    },
  };
}

export interface BaselineContext {
  dir: string;
  tmpRoot: string;
  pgUp: boolean;
  servers: BenchServers;
  replayPool: number;
  sqliteSynchronous: "full" | "normal";
}

export async function openBaseline(ctx: BaselineContext): Promise<Baseline> {
  const checkout = path.resolve(ctx.dir);
  if (!existsSync(path.join(checkout, "node_modules"))) {
    throw new Error(`--baseline ${ctx.dir}: no node_modules there (hard-link this checkout's: cp -al node_modules ${ctx.dir}/; then node scripts/prisma-generate.mjs in it)`);
  }
  const modules = await loadModules(checkout);
  const root = path.join(ctx.tmpRoot, "baseline");
  mkdirSync(root, { recursive: true });
  const databases = new BenchDatabases(root, {}, checkout);
  const rev = path.basename(checkout);
  const built = existsSync(path.join(checkout, ".next", "BUILD_ID"));
  const server: "serve" | "next" = existsSync(path.join(checkout, "scripts", "serve.mjs")) ? "serve" : "next";

  async function inProcess(ours: string, sync: "full" | "normal" | undefined): Promise<SubjectOrSkip> {
    const id = `before.${ours}`;
    const label = `before (${rev}) in-process · ${sync ? `SQLite ${sync.toUpperCase()}` : "Postgres"}`;
    // Read beside ours (the report's before/after table), not against a raw floor.
    if (!sync && !ctx.pgUp) return skippedSubject(id, "before", label, NO_POSTGRES, pairWorkloads(CLIENTS.withEight, CLIENTS.standard), ours);
    const opened = modules.open(sync ? await databases.sqlite(`before_${sync}`) : await databases.postgres("before"), sync);
    const created = await modules.createProjectWithKey(opened.store, "bench in-process (baseline)");
    const subject = modules.inProcessSubject({ id, label, floorId: ours, store: opened.store, projectId: created!.projectId, replayPool: ctx.replayPool });
    return { ...subject, id, group: "before", label, floorId: ours, close: () => opened.close() };
  }

  async function overHttp(ours: string, provider: "sqlite" | "postgres"): Promise<SubjectOrSkip> {
    const id = `before.${ours}`;
    const label = `before (${rev}) HTTP · ${provider === "sqlite" ? `SQLite ${ctx.sqliteSynchronous.toUpperCase()}` : "Postgres"} (${server === "serve" ? "npm start" : "next start"})`;
    const standard = pairWorkloads(CLIENTS.standard, CLIENTS.standard);
    if (provider === "postgres" && !ctx.pgUp) return skippedSubject(id, "before", label, NO_POSTGRES, standard, ours);
    if (!built) return skippedSubject(id, "before", label, `no production build in ${ctx.dir} (run next build there)`, standard, ours);
    // The gate database as the baseline wrote it (its project, bench policy and replay pool), then its server on it.
    const url = provider === "sqlite" ? await databases.sqlite("before_http") : await databases.postgres("before_http");
    const opened = modules.open(url, provider === "sqlite" ? ctx.sqliteSynchronous : undefined);
    let apiKey: string;
    try {
      const created = await modules.createProjectWithKey(opened.store, "bench (baseline)");
      await opened.applyBenchPolicy(created!.projectId);
      await modules.fillReplayPool(modules.createGate({ inProcess: { store: opened.store, projectId: created!.projectId, policies: modules.benchPolicies } }), "http_pool", ctx.replayPool);
      apiKey = created!.apiKey.key;
    } finally {
      await opened.close();
    }
    const running = await ctx.servers.launch(url, { dir: checkout, server });
    const subject = httpGateSubject({
      id,
      group: "before",
      label,
      floorId: ours,
      baseUrls: [running.baseUrl],
      apiKey,
      replayPool: { tag: "http_pool", size: ctx.replayPool },
      clients: { fresh: [...CLIENTS.standard], replay: [...CLIENTS.standard] },
    });
    return subject;
  }

  async function mcpGateway(ours: string, upstreamUrl: string | undefined): Promise<SubjectOrSkip> {
    const id = `before.${ours}`;
    const label = `before (${rev}) MCP gateway · SQLite ${ctx.sqliteSynchronous.toUpperCase()} (${server === "serve" ? "npm start" : "next start"}, /mcp/{upstream})`;
    const shape: WorkloadShape[] = [["fresh", "calls", [1]], ["replay", "calls", [1]]];
    if (!built) return skippedSubject(id, "before", label, `no production build in ${ctx.dir} (run next build there)`, shape, ours);
    if (!upstreamUrl) return skippedSubject(id, "before", label, "no MCP upstream", shape, ours);
    // The baseline's own seeding (its project, bench policy, allowlist entry and the upstream row), then its server on it.
    const { gateDatabase } = await load(checkout, "bench/setup/subjects.ts");
    const db = (await gateDatabase(await databases.sqlite("before_mcp"), { tag: "mcp_pool", size: 1 }, ctx.sqliteSynchronous, undefined, upstreamUrl)) as { url: string; apiKey: string };
    const running = await ctx.servers.launch(db.url, { dir: checkout, server });
    return mcpGatewaySubject({ id, group: "before", label, floorId: ours, gatewayUrl: `${running.baseUrl}/mcp/bench-shop`, apiKey: db.apiKey, replayPool: ctx.replayPool });
  }

  return {
    subjectFor(ours, context) {
      if (ours === "mcp.sqlite") return mcpGateway(ours, context?.mcpUpstream);
      const [, kind, provider] = /^(inprocess|http)\.(sqlite|postgres)/.exec(ours) ?? [];
      if (kind === "http") return overHttp(ours, provider as "sqlite" | "postgres");
      return inProcess(ours, ours.endsWith("-normal") ? "normal" : ours.endsWith("-full") ? "full" : undefined);
    },
    dropAll: () => databases.dropAll(),
  };
}
