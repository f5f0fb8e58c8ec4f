// A quick HTTP benchmark of the gate: begin+complete pairs per second on fresh keys over a real
// `next start` server, on SQLite and on Postgres, at 1 and 32 concurrent clients.
// Usage: npx tsx bench/http-pairs.ts [pairsPerCell]
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseDatabaseUrl } from "../lib/store/database-url";
import { ensureMigrated } from "../lib/store/migrate";
import { createTestProject } from "../test/helpers/fixtures";
import { launchServer } from "../test/helpers/launch-server";
import { adminQuery, postgresAvailable, postgresUrlFor } from "../test/helpers/postgres";
// @ts-expect-error plain .mjs helper without types
import { buildIfNeeded } from "../scripts/lib/build-if-needed.mjs";

const PAIRS = Number(process.argv[2] ?? 3000);
const CONCURRENCY = [1, 32];

interface Cell {
  provider: string;
  clients: number;
  pairs: number;
  pairsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
}

const quantile = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;

async function measure(baseUrl: string, apiKey: string, clients: number, pairs: number, label: string): Promise<Cell> {
  const headers = { authorization: `Bearer ${apiKey}`, "content-type": "application/json" };
  const latencies: number[] = [];
  let next = 0;
  const runId = `bench_${label}_${clients}_${Date.now()}`;
  const worker = async () => {
    while (next < pairs) {
      const i = next++;
      const t0 = performance.now();
      const begin = await fetch(`${baseUrl}/api/v1/calls/begin`, {
        method: "POST",
        headers,
        body: JSON.stringify({ tool: "charge_card", runId, stepId: `step_${i}`, args: { amount: i } }),
      }).then((r) => r.json());
      if (begin.decision !== "execute") throw new Error(`unexpected ${JSON.stringify(begin)}`);
      const done = await fetch(`${baseUrl}/api/v1/calls/${begin.callId}/complete`, {
        method: "POST",
        headers,
        body: JSON.stringify({ leaseToken: begin.leaseToken, outcome: "succeeded", result: { ok: true } }),
      });
      if (!done.ok) throw new Error(`complete failed ${done.status}`);
      await done.arrayBuffer();
      latencies.push(performance.now() - t0);
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: clients }, worker));
  const seconds = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  return {
    provider: label,
    clients,
    pairs,
    pairsPerSecond: Math.round(pairs / seconds),
    p50Ms: Number(quantile(latencies, 0.5).toFixed(2)),
    p99Ms: Number(quantile(latencies, 0.99).toFixed(2)),
  };
}

async function benchProvider(label: string, databaseUrl: string, tmpRoot: string): Promise<Cell[]> {
  await ensureMigrated(parseDatabaseUrl(databaseUrl));
  const project = await createTestProject(databaseUrl, "bench");
  const server = await launchServer(databaseUrl, tmpRoot);
  try {
    await measure(server.baseUrl, project.apiKey, 8, 300, `${label}_warmup`);
    const cells: Cell[] = [];
    for (const clients of CONCURRENCY) {
      cells.push(await measure(server.baseUrl, project.apiKey, clients, PAIRS, label));
      console.error(`  ${label} × ${clients}: ${cells.at(-1)!.pairsPerSecond} pairs/s`);
    }
    return cells;
  } finally {
    await server.stop();
  }
}

async function main() {
  buildIfNeeded();
  const tmpRoot = mkdtempSync(path.join(os.tmpdir(), "idemgate-bench-"));
  const cells: Cell[] = [];
  try {
    cells.push(...(await benchProvider("sqlite", `file:${path.join(tmpRoot, "bench.db")}`, tmpRoot)));
    if (await postgresAvailable()) {
      const name = `idemgate_bench_${Date.now().toString(36)}`;
      await adminQuery(`CREATE DATABASE ${name}`);
      try {
        cells.push(...(await benchProvider("postgres", postgresUrlFor(name), tmpRoot)));
      } finally {
        await adminQuery(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      }
    } else {
      console.error("no Postgres at TEST_POSTGRES_URL: skipping the Postgres rows");
    }
  } finally {
    rmSync(tmpRoot, { recursive: true, force: true });
  }
  console.table(cells);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
