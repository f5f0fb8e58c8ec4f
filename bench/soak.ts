/**
 * Sustained load on one `next start` (SQLite by default): N keep-alive clients on loopback, each
 * doing begin (execute) + complete pairs back to back, for a bounded time and count. Reports, per
 * window, pairs/s, begin and complete p50/p99 and max, and the server's RSS (the whole process
 * tree), so a stall or memory growth under load shows where it starts.
 *
 *   npx tsx bench/soak.ts [--clients 200] [--seconds 60] [--window 10] [--max-pairs 400000]
 *                         [--database file:…|postgresql://…] [--env KEY=VALUE …]
 *
 * Not a test: its figures are timings on a shared machine (issue #16 item 11).
 */
import { mkdtempSync, readFileSync, readdirSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
// @ts-expect-error plain .mjs helper without types
import { buildIfNeeded } from "../scripts/lib/build-if-needed.mjs";
import { createTestProject } from "../test/helpers/fixtures";
import { KeepAliveClient } from "./http-client";
import { BenchDatabases } from "./setup/databases";
import { launchServer } from "../test/helpers/launch-server";
import { quantile } from "./stats";

const { values } = parseArgs({
  options: {
    clients: { type: "string", default: "200" },
    seconds: { type: "string", default: "60" },
    window: { type: "string", default: "10" },
    "max-pairs": { type: "string", default: "400000" },
    database: { type: "string" },
    env: { type: "string", multiple: true, default: [] },
  },
});
const clients = Number(values.clients);
const seconds = Number(values.seconds);
const windowMs = Number(values.window) * 1000;
const maxPairs = Number(values["max-pairs"]);
const extraEnv = Object.fromEntries(values.env!.map((pair) => pair.split(/=(.*)/s).slice(0, 2) as [string, string]));

/** RSS in MB of a process and all its descendants (next start may run its server in a child). */
function treeRssMb(rootPid: number): number {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      children.set(ppid, [...(children.get(ppid) ?? []), Number(entry)]);
    } catch {
      // exited meanwhile
    }
  }
  let kb = 0;
  const visit = (pid: number) => {
    try {
      const match = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
      kb += match ? Number(match[1]) : 0;
    } catch {
      return;
    }
    for (const child of children.get(pid) ?? []) visit(child);
  };
  visit(rootPid);
  return kb / 1024;
}

interface Window {
  pairs: number;
  begin: number[];
  complete: number[];
  errors: number;
  rss: number[];
}

const newWindow = (): Window => ({ pairs: 0, begin: [], complete: [], errors: 0, rss: [] });

async function main(): Promise<void> {
  await buildIfNeeded();
  const tmpRoot = mkdtempSync(path.join(os.tmpdir(), "idemgate-soak-"));
  const databases = new BenchDatabases(tmpRoot);
  const databaseUrl = values.database ?? (await databases.sqlite("soak"));
  const project = await createTestProject(databaseUrl);
  const server = await launchServer(databaseUrl, tmpRoot, extraEnv);
  const pid = server.process.pid!;
  console.error(`[soak] ${clients} clients, ${seconds} s, server pid ${pid}, ${databaseUrl.split(":")[0]}, RSS at start ${treeRssMb(pid).toFixed(0)} MB`);

  const client = new KeepAliveClient(server.baseUrl, { authorization: `Bearer ${project.apiKey}` }, clients);
  const windows: Window[] = [newWindow()];
  const started = performance.now();
  const current = () => windows[Math.min(windows.length - 1, Math.floor((performance.now() - started) / windowMs))]!;
  const sampler = setInterval(() => {
    while (windows.length <= Math.floor((performance.now() - started) / windowMs)) windows.push(newWindow());
    current().rss.push(treeRssMb(pid));
  }, 250);
  let next = 0;
  /** [begin ms, started at ms into the run, sequence]: where the slowest begins came from. */
  const slowest: [number, number, number][] = [];
  let firstError: string | null = null;
  const deadline = started + seconds * 1000;
  const worker = async () => {
    while (next < maxPairs && performance.now() < deadline) {
      const seq = next++;
      try {
        const t0 = performance.now();
        const begin = await client.post("/api/v1/calls/begin", { tool: "charge_card", runId: `soak_${seq}`, stepId: "charge", args: { amount: seq } });
        const t1 = performance.now();
        if (begin.status !== 200 || begin.body?.decision !== "execute") throw new Error(`begin ${begin.status} ${JSON.stringify(begin.body).slice(0, 200)}`);
        const done = await client.post(`/api/v1/calls/${begin.body.callId}/complete`, { leaseToken: begin.body.leaseToken, outcome: "succeeded", result: { ok: true, seq } });
        const t2 = performance.now();
        if (done.status !== 200) throw new Error(`complete ${done.status} ${JSON.stringify(done.body).slice(0, 200)}`);
        slowest.push([t1 - t0, t0 - started, seq]);
        const w = current();
        w.pairs++;
        w.begin.push(t1 - t0);
        w.complete.push(t2 - t1);
      } catch (error) {
        current().errors++;
        firstError ??= error instanceof Error ? error.message : String(error);
      }
    }
  };
  await Promise.all(Array.from({ length: clients }, worker));
  clearInterval(sampler);
  const total = (performance.now() - started) / 1000;
  const rssEnd = treeRssMb(pid);
  client.close();
  await server.stop();
  if (process.env.SOAK_SERVER_LOG) console.log(server.output().split("\n").filter((l) => l.includes("[gcstat]")).join("\n"));

  const ms = (v: number) => (Number.isFinite(v) ? v.toFixed(v < 10 ? 1 : 0) : "-");
  const rows = windows.map((w, i) => {
    const b = Float64Array.from(w.begin).sort();
    const c = Float64Array.from(w.complete).sort();
    return {
      window: `${(i * windowMs) / 1000}-${((i + 1) * windowMs) / 1000}s`,
      pairsPerSec: Math.round(w.pairs / (windowMs / 1000)),
      beginP50: ms(quantile(b, 0.5)),
      beginP99: ms(quantile(b, 0.99)),
      completeP50: ms(quantile(c, 0.5)),
      completeP99: ms(quantile(c, 0.99)),
      completeMax: ms(c.length ? c[c.length - 1]! : Number.NaN),
      rssMaxMb: w.rss.length ? Math.round(Math.max(...w.rss)) : "-",
      errors: w.errors,
    };
  });
  console.table(rows);
  const all = (key: "begin" | "complete") => Float64Array.from(windows.flatMap((w) => w[key])).sort();
  const pairs = windows.reduce((n, w) => n + w.pairs, 0);
  console.log(
    `[soak] ${pairs} pairs in ${total.toFixed(1)} s (${Math.round(pairs / total)}/s); begin p50 ${ms(quantile(all("begin"), 0.5))} p99 ${ms(quantile(all("begin"), 0.99))} ms; ` +
      `complete p50 ${ms(quantile(all("complete"), 0.5))} p99 ${ms(quantile(all("complete"), 0.99))} max ${ms(all("complete").at(-1) ?? Number.NaN)} ms; ` +
      `RSS max ${Math.round(Math.max(...windows.flatMap((w) => w.rss)))} MB, at end ${Math.round(rssEnd)} MB; errors ${windows.reduce((n, w) => n + w.errors, 0)}${firstError ? ` (first: ${firstError})` : ""}`,
  );
  slowest.sort((a, b) => b[0] - a[0]);
  console.log(`[soak] slowest begins (ms, started at ms, seq): ${slowest.slice(0, 8).map((x) => x.map(Math.round).join("/")).join("  ")}`);
  await databases.dropAll();
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
