// npm run bench:gate-cpu: the process CPU one in-process `gate.call` costs (issue #42), per kind of
// call: a fresh pair (begin → tool → complete) and a replay, one client at a time, on SQLite (and
// Postgres with GATE_CPU_PG=1). CPU is process.cpuUsage() over the loop (user + system, every
// thread of the process: the SQLite connection runs on this one), so a loaded machine moves it far
// less than wall time. GATE_CPU_ONLY=fresh|replay runs one kind; GATE_CPU_PROFILE=dir writes a CPU
// profile of the measured rounds, read with `node bench/cpu-top.mjs <file>`.
import { mkdtempSync, writeFileSync } from "node:fs";
import { Session } from "node:inspector";
import os from "node:os";
import path from "node:path";
import { createGate } from "../lib/sdk";
import { createProjectWithKey } from "../lib/server/operators/projects";
import { parseDatabaseUrl } from "../lib/store/connection/database-url";
import { ensureMigrated } from "../lib/store/connection/migrate";
import { gateCall } from "./cells/in-process";
import { benchPolicies } from "./cells/bench-policy";
import { benchApp } from "./setup/bench-app";
import { freshCall, replayCall } from "./cells/types";

const CALLS = Number(process.env.GATE_CPU_CALLS ?? 5000);
const ROUNDS = Number(process.env.GATE_CPU_ROUNDS ?? 3);
const POOL = 512;

/** GATE_CPU_PROFILE=dir: a V8 CPU profile of the measured rounds only (not setup or warm-up). */
async function profiled<T>(label: string, run: () => Promise<T>): Promise<T> {
  const dir = process.env.GATE_CPU_PROFILE;
  if (!dir) return run();
  const session = new Session();
  session.connect();
  const post = (method: string) => new Promise<unknown>((resolve, reject) => session.post(method, (error, result) => (error ? reject(error) : resolve(result))));
  await post("Profiler.enable");
  await post("Profiler.start");
  const result = await run();
  const { profile } = (await post("Profiler.stop")) as { profile: unknown };
  writeFileSync(path.join(dir, `${label.replace(/\W+/g, "-")}.cpuprofile`), JSON.stringify(profile));
  session.disconnect();
  return result;
}

async function measure(label: string, op: (i: number) => Promise<void>): Promise<number> {
  for (let i = 0; i < 500; i++) await op(i); // warm-up: JIT, caches
  return profiled(label, () => rounds(label, op));
}

async function rounds(label: string, op: (i: number) => Promise<void>): Promise<number> {
  const perCall: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    const before = process.cpuUsage();
    const wall = performance.now();
    for (let i = 0; i < CALLS; i++) await op(1_000 + r * CALLS + i);
    const used = process.cpuUsage(before);
    const cpu = (used.user + used.system) / CALLS;
    perCall.push(cpu);
    const ms = performance.now() - wall;
    console.log(`${label.padEnd(22)} round ${r + 1}: ${cpu.toFixed(0)} µs CPU/call, ${((ms * 1000) / CALLS).toFixed(0)} µs wall/call`);
  }
  perCall.sort((a, b) => a - b);
  return perCall[Math.floor(perCall.length / 2)]!;
}

async function subject(name: string, databaseUrl: string): Promise<void> {
  const { store } = benchApp(databaseUrl, "full").gate;
  const created = await createProjectWithKey(store, "gate cpu");
  const gate = createGate({ inProcess: { store, projectId: created!.projectId, policies: benchPolicies } });
  const only = process.env.GATE_CPU_ONLY;
  const fresh = only === "replay" ? NaN : await measure(`${name} fresh pair`, (i) => gateCall(gate, freshCall("fresh", i), "executed"));
  for (let i = 0; i < POOL; i++) await gateCall(gate, replayCall("pool", i, POOL), "executed");
  const replay = only === "fresh" ? NaN : await measure(`${name} replay`, (i) => gateCall(gate, replayCall("pool", i, POOL), "replayed"));
  console.log(`${name}: median CPU per fresh pair ${fresh.toFixed(0)} µs, per replay ${replay.toFixed(0)} µs (load ${os.loadavg().map((l) => l.toFixed(2)).join(" ")})`);
  await store.close();
}

async function main() {
  const tmp = mkdtempSync(path.join(os.tmpdir(), "idemgate-gate-cpu-"));
  const sqliteUrl = `file:${path.join(tmp, "cpu.db")}`;
  await ensureMigrated(parseDatabaseUrl(sqliteUrl));
  console.log(`load at start ${os.loadavg().map((l) => l.toFixed(2)).join(" ")}`);
  await subject("sqlite", sqliteUrl);
  if (process.env.GATE_CPU_PG === "1") {
    const base = process.env.TEST_POSTGRES_URL ?? "postgresql://postgres@127.0.0.1:5432/test";
    const { default: pg } = await import("pg");
    const admin = new pg.Client({ connectionString: base });
    await admin.connect();
    const db = `gate_cpu_${process.pid}`;
    await admin.query(`CREATE DATABASE ${db}`);
    const url = base.replace(/\/[^/]*$/, `/${db}`);
    try {
      await ensureMigrated(parseDatabaseUrl(url));
      await subject("postgres", url);
    } finally {
      await admin.query(`DROP DATABASE ${db} WITH (FORCE)`);
      await admin.end();
    }
  }
}

main().then(
  () => process.exit(0),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
