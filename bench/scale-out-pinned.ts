/**
 * 1 vs 2 gate instances on one Postgres with every part pinned to its own CPUs (`taskset`), so
 * what the instances get is fixed instead of whatever a shared machine leaves them. Run the script
 * itself (the load generator) pinned, against a Postgres pinned elsewhere:
 *
 *   taskset -c 1 npx tsx bench/scale-out-pinned.ts --layouts 0 0,0 0,1 [--seconds 5] [--reps 3] [--clients 32]
 *
 * Each layout lists the CPU of each instance: `0` one instance on CPU 0, `0,0` two instances
 * sharing CPU 0 (the same CPU for the app tier: does a second instance cost anything?), `0,1` two
 * instances on CPUs 0 and 1. Layouts are interleaved per repetition (forward, then reversed), the
 * medians reported. Postgres from TEST_POSTGRES_URL; the servers are the production build (built
 * first if the sources changed), with the bench's settings.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
// @ts-expect-error plain .mjs helper without types
import { buildIfNeeded } from "../scripts/lib/build-if-needed.mjs";
import { httpGateSubject } from "./cells/http-gate";
import { drive } from "./load";
import { BenchDatabases } from "./setup/databases";
import { BenchServers, type TestServer, benchServerEnv } from "./setup/servers";
import { gateDatabase } from "./setup/subjects";

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1]! : fallback;
}

function layoutsArg(): number[][] {
  const i = process.argv.indexOf("--layouts");
  const values: string[] = [];
  for (let j = i + 1; i > 0 && j < process.argv.length && !process.argv[j]!.startsWith("--"); j++) values.push(process.argv[j]!);
  return (values.length ? values : ["0", "0,0", "0,1"]).map((layout) => layout.split(",").map(Number));
}

/** Pins a process and every thread and descendant of it. */
function pin(pid: number, cpu: number): void {
  execFileSync("taskset", ["-a", "-cp", String(cpu), String(pid)], { stdio: "ignore" });
  const children = execFileSync("sh", ["-c", `pgrep -P ${pid} || true`], { encoding: "utf8" }).split("\n").filter(Boolean);
  for (const child of children) pin(Number(child), cpu);
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

async function main(): Promise<void> {
  const seconds = Number(arg("seconds", "5"));
  const reps = Number(arg("reps", "3"));
  const clients = Number(arg("clients", "32"));
  const layouts = layoutsArg();
  const instances = Math.max(...layouts.map((layout) => layout.length));
  buildIfNeeded();
  const tmpRoot = mkdtempSync(path.join(os.tmpdir(), "idemgate-pinned-"));
  const databases = new BenchDatabases(tmpRoot);
  const servers = new BenchServers(tmpRoot, benchServerEnv("full"));
  try {
    const url = await databases.postgres("pinned");
    const pool = { tag: "pinned_pool", size: 256 };
    const db = await gateDatabase(url, pool, "full");
    const started: TestServer[] = [];
    for (let i = 0; i < instances; i++) started.push(await servers.launch(url));
    const results = new Map<string, { ops: number[]; p50: number[] }>();
    let seq = 0;
    for (let rep = 0; rep < reps; rep++) {
      const order = rep % 2 === 0 ? layouts : [...layouts].reverse();
      for (const layout of order) {
        layout.forEach((cpu, i) => pin(started[i]!.process.pid!, cpu));
        const subject = httpGateSubject({
          id: "pinned",
          group: "scaleout",
          label: "pinned",
          baseUrls: layout.map((_, i) => started[i]!.baseUrl),
          apiKey: db.apiKey,
          replayPool: pool,
          clients: { fresh: [clients], replay: [clients] },
        });
        for (const workload of subject.workloads) {
          // Warm: keep-alive sockets, statement preparation on each instance's pool.
          await drive({ ops: 200, clients, maxMs: 1_000, firstSeq: seq, tag: `w${rep}_${layout.join("_")}_${workload.name}`, op: workload.op });
          seq += 1_000;
          const run = await drive({ ops: 1_000_000, clients, maxMs: seconds * 1000, firstSeq: seq, tag: `r${rep}_${layout.join("_")}_${workload.name}`, op: workload.op });
          seq += run.ops + 1;
          if (run.errors) throw new Error(`${workload.name} on ${layout}: ${run.errors} errors, first: ${run.firstError}`);
          const key = `${layout.length} instance(s) on CPU ${layout.join(",")} · ${workload.name}`;
          const entry = results.get(key) ?? { ops: [], p50: [] };
          entry.ops.push(run.ops / run.seconds);
          entry.p50.push(median([...run.latencies]));
          results.set(key, entry);
          console.error(`${key}: ${(run.ops / run.seconds).toFixed(0)} ops/s, p50 ${median([...run.latencies]).toFixed(2)} ms`);
        }
        await subject.close();
      }
    }
    console.log(`\n${clients} clients, ${seconds} s per cell, ${reps} repetitions interleaved, medians; load average ${os.loadavg().map((n) => n.toFixed(2)).join(" ")}`);
    for (const [key, { ops, p50 }] of results) console.log(`${key.padEnd(44)} ${median(ops).toFixed(0).padStart(6)} ops/s  p50 ${median(p50).toFixed(2)} ms   (ops/s per rep: ${ops.map((n) => n.toFixed(0)).join(", ")})`);
  } finally {
    await servers.stopAll();
    await databases.dropAll();
    rmSync(tmpRoot, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
