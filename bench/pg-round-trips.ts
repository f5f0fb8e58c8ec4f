/**
 * Where a Postgres begin's time goes, from the client's side: every statement the hot store sends
 * per gate operation (a fresh begin, a heartbeat, its complete, a replay, an in_progress begin), how many are
 * sequential round trips (a statement sent while another of the same operation is in flight
 * overlaps it), and each statement's client-side time. The gate is built as a server builds it
 * (the policy source reads the database), one operation at a time on an otherwise idle pool.
 *
 *   npx tsx bench/pg-round-trips.ts [--ops 300]
 *
 * Postgres from TEST_POSTGRES_URL (default postgresql://postgres@127.0.0.1:5432/test); a migrated
 * database is created and dropped.
 */
import { randomBytes } from "node:crypto";
import pg from "pg";
import { GateService } from "../lib/server/gate/gate-service";
import { LeaseTokens } from "../lib/server/gate/lease-tokens";
import { StorePolicySource } from "../lib/server/policies/policy-source";
import { createProjectWithKey } from "../lib/server/operators/projects";
import { ensureMigrated } from "../lib/store/connection/migrate";
import { parseDatabaseUrl } from "../lib/store/connection/database-url";
import { openStore } from "../lib/store/hot/open-gate-store";
import { adminQuery, postgresUrlFor } from "../test/helpers/postgres";

interface Sent {
  label: string;
  start: number;
  end: number;
}

const opsArg = process.argv.indexOf("--ops");
const OPS = opsArg > 0 ? Number(process.argv[opsArg + 1]) : 300;

/** Every statement any pg client sends, timed from send to answer. */
let sink: Sent[] | null = null;
const original = pg.Client.prototype.query;
pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
  const config = args[0] as string | { name?: string; text?: string };
  const text = typeof config === "string" ? config : (config.text ?? "");
  const into = sink;
  const start = performance.now();
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  const result = (original as any).apply(this, args);
  if (into && result && typeof result.then === "function") {
    result.then(
      () => into.push({ label: labelOf(text), start, end: performance.now() }),
      () => into.push({ label: `${labelOf(text)} (failed)`, start, end: performance.now() }),
    );
  }
  return result;
} as typeof pg.Client.prototype.query;

function labelOf(text: string): string {
  const t = text.replace(/\s+/g, " ").trim();
  if (t.startsWith("INSERT INTO events") && t.includes("unnest")) return "ledger batch (write-behind)";
  if (t.includes("FROM policies") || t.includes("policy_layers") || t.includes("tool_policies")) return `policy: ${t.slice(0, 60)}…`;
  return t.slice(0, 90) + (t.length > 90 ? "…" : "");
}

/** Sequential round trips: a statement sent while another is in flight overlaps it. */
function waves(sent: readonly Sent[]): number {
  const sorted = [...sent].sort((a, b) => a.start - b.start);
  let count = 0;
  let busyUntil = -Infinity;
  for (const s of sorted) {
    if (s.start >= busyUntil) count++;
    busyUntil = Math.max(busyUntil, s.end);
  }
  return count;
}

interface OpStats {
  ops: number;
  statements: number;
  waves: number;
  totalMs: number[];
  byLabel: Map<string, number[]>;
}

function newStats(): OpStats {
  return { ops: 0, statements: 0, waves: 0, totalMs: [], byLabel: new Map() };
}

async function measure<T>(stats: OpStats, op: () => Promise<T>): Promise<T> {
  const sent: Sent[] = [];
  sink = sent;
  const start = performance.now();
  const result = await op();
  const total = performance.now() - start;
  sink = null;
  // Let answers that resolved in the same tick be pushed.
  await new Promise((resolve) => setImmediate(resolve));
  const own = sent.filter((s) => !s.label.startsWith("ledger batch"));
  stats.ops++;
  stats.statements += own.length;
  stats.waves += waves(own);
  stats.totalMs.push(total);
  for (const s of own) {
    const list = stats.byLabel.get(s.label) ?? [];
    list.push(s.end - s.start);
    stats.byLabel.set(s.label, list);
  }
  return result;
}

function p50(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? NaN;
}

function report(name: string, stats: OpStats): void {
  console.log(`\n${name}: ${stats.ops} ops, ${(stats.statements / stats.ops).toFixed(2)} statements/op, ${(stats.waves / stats.ops).toFixed(2)} sequential round trips/op, p50 ${p50(stats.totalMs).toFixed(3)} ms per op`);
  for (const [label, times] of stats.byLabel) {
    console.log(`  ${(times.length / stats.ops).toFixed(2)}× p50 ${p50(times).toFixed(3)} ms  ${label}`);
  }
}

async function main(): Promise<void> {
  const name = `idemgate_rt_${randomBytes(4).toString("hex")}`;
  await adminQuery(`CREATE DATABASE ${name}`);
  const url = postgresUrlFor(name);
  try {
    await ensureMigrated(parseDatabaseUrl(url));
    const store = openStore({ databaseUrl: url });
    const gate = new GateService(store, new StorePolicySource(store), { leaseTokens: new LeaseTokens("round-trips") });
    const projectId = (await createProjectWithKey(store, "round trips"))!.projectId;
    const call = (runId: string, step: string) => ({ tool: "charge_card", runId, stepId: step, scope: null, toolCallId: null, agentId: null, args: { step } });
    // Warm the pool and every statement's preparation.
    for (let i = 0; i < 20; i++) {
      const d = await gate.begin(projectId, call("warm", `w${i}`));
      if (d.decision === "execute") await gate.complete(projectId, d.callId, d.leaseToken, { outcome: "succeeded", result: { i } });
      await gate.begin(projectId, call("warm", `w${i}`));
    }
    await store.settleLedger();

    const fresh = newStats();
    const complete = newStats();
    const replay = newStats();
    const inProgress = newStats();
    const heartbeat = newStats();
    for (let i = 0; i < OPS; i++) {
      const run = `run${i % 16}_${Math.floor(i / 16)}`;
      const d = await measure(fresh, () => gate.begin(projectId, call(run, `s${i}`)));
      if (d.decision !== "execute") throw new Error(`fresh: ${d.decision}`);
      // Another agent's begin while the lease is held.
      const held = await measure(inProgress, () => gate.begin(projectId, call(run, `s${i}`)));
      if (held.decision !== "in_progress") throw new Error(`in_progress: ${held.decision}`);
      await measure(heartbeat, () => gate.heartbeat(projectId, d.callId, d.leaseToken, 60));
      await measure(complete, () => gate.complete(projectId, d.callId, d.leaseToken, { outcome: "succeeded", result: { i } }));
      const r = await measure(replay, () => gate.begin(projectId, call(run, `s${i}`)));
      if (r.decision !== "replay") throw new Error(`replay: ${r.decision}`);
    }
    report("fresh begin (execute)", fresh);
    report("complete", complete);
    report("replay begin", replay);
    report("in_progress begin", inProgress);
    report("heartbeat", heartbeat);
    await store.close();
  } finally {
    await adminQuery(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
