// Added latency of HTTP tools (issue #19): the Idempotency-Key middleware (gate in process and over
// HTTP) over the same Express handler without it, and the /gw gateway over calling the upstream
// directly. Fresh keys (every request executes), sequential, rounds interleaved so load drifts hit
// every subject alike. `tsx bench/http-tools.ts [--requests 300] [--rounds 5]`
import { randomUUID } from "node:crypto";
import { mkdtempSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { createGate } from "../lib/sdk";
import { createProjectWithKey } from "../lib/server/projects";
import { ensureMigrated } from "../lib/store/connection/migrate";
import { parseDatabaseUrl } from "../lib/store/connection/database-url";
import { openStore } from "../lib/store/hot/open-gate-store";
import { startChargeUpstream } from "../test/helpers/charge-upstream";
import { startToolServer } from "../test/helpers/http-tool-servers";
import { launchServer } from "../test/helpers/launch-server";
import { OperatorClient } from "../test/helpers/operator-client";
import { quantile } from "./stats";
// @ts-expect-error plain .mjs helper without types
import { buildIfNeeded } from "../scripts/lib/build-if-needed.mjs";

const arg = (name: string, fallback: number) => {
  const at = process.argv.indexOf(`--${name}`);
  return at > 0 ? Number(process.argv[at + 1]) : fallback;
};
const REQUESTS = arg("requests", 300);
const ROUNDS = arg("rounds", 5);
const ADMIN = { email: "bench@idemgate.local", password: "bench-password-0001" };

async function database(root: string, name: string) {
  const url = `file:${path.join(root, `${name}.db`)}`;
  await ensureMigrated(parseDatabaseUrl(url));
  const store = openStore({ databaseUrl: url });
  const project = await createProjectWithKey(store, name);
  if (!project) throw new Error("project id collision");
  return { url, store, projectId: project.projectId, apiKey: project.apiKey.key };
}

async function main() {
  buildIfNeeded();
  const root = mkdtempSync(path.join(os.tmpdir(), "idemgate-httptools-"));
  const embedded = await database(root, "embedded");
  const served = await database(root, "served");
  await served.store.close();
  const server = await launchServer(served.url, root, { ADMIN_EMAIL: ADMIN.email, ADMIN_PASSWORD: ADMIN.password, BETTER_AUTH_SECRET: "bench-secret-0123456789abcdef0123456789abcdef" });
  const upstream = await startChargeUpstream();
  const inProcessTools = await startToolServer("express", createGate({ inProcess: { store: embedded.store, projectId: embedded.projectId } }));
  const httpTools = await startToolServer("express", createGate({ baseUrl: server.baseUrl, apiKey: served.apiKey }));
  try {
    const admin = await OperatorClient.signIn(server.baseUrl, ADMIN.email, ADMIN.password);
    const base = `/api/v1/operator/projects/${served.projectId}`;
    for (const [route, body] of [
      [`${base}/upstreams`, { kind: "http", name: "pay", url: `${upstream.url}/` }],
      [`${base}/outbound-allowlist`, { pattern: `127.0.0.1:${upstream.port}` }],
    ] as const) {
      const res = await admin.raw("POST", route, body);
      if (!res.ok) throw new Error(`${route}: ${res.status} ${await res.text()}`);
    }

    const post = (url: string, headers: Record<string, string> = {}) => async () => {
      const res = await fetch(url, {
        method: "POST",
        headers: { "content-type": "application/json", "idempotency-key": randomUUID(), ...headers },
        body: JSON.stringify({ id: randomUUID(), amount: 1 }),
      });
      await res.arrayBuffer();
      if (res.status >= 300) throw new Error(`${url}: ${res.status}`);
    };
    const subjects: [string, () => Promise<void>][] = [
      ["handler without middleware (Express)", post(`${inProcessTools.baseUrl}/v1/direct`)],
      ["middleware, gate in process (SQLite)", post(`${inProcessTools.baseUrl}/v1/refunds`)],
      ["middleware, gate over HTTP (next start, SQLite)", post(`${httpTools.baseUrl}/v1/refunds`)],
      ["upstream called directly", post(`${upstream.url}/v1/charges`)],
      ["upstream through /gw (next start, SQLite)", post(`${server.baseUrl}/gw/pay/v1/charges`, { authorization: `Bearer ${served.apiKey}` })],
    ];
    const samples = new Map<string, number[]>(subjects.map(([name]) => [name, []]));
    for (const [, send] of subjects) for (let i = 0; i < 30; i++) await send(); // warm-up
    for (let round = 0; round < ROUNDS; round++) {
      for (const [name, send] of subjects) {
        for (let i = 0; i < REQUESTS / ROUNDS; i++) {
          const started = performance.now();
          await send();
          samples.get(name)!.push(performance.now() - started);
        }
      }
    }
    const rows = subjects.map(([name]) => {
      const sorted = Float64Array.from(samples.get(name)!).sort();
      return { name, p50: quantile(sorted, 0.5), p99: quantile(sorted, 0.99) };
    });
    const baseline = (name: string) => rows.find((r) => r.name === name)!;
    const over = (row: (typeof rows)[number], base: (typeof rows)[number]) => `+${(row.p50 - base.p50).toFixed(2)} / +${(row.p99 - base.p99).toFixed(2)}`;
    console.log(`\n${REQUESTS} sequential requests per subject, fresh keys, ${ROUNDS} interleaved rounds (ms)\n`);
    console.log("| subject | p50 | p99 | added p50 / p99 |\n|---|---|---|---|");
    for (const row of rows) {
      const base = row.name.startsWith("middleware") ? baseline(rows[0]!.name) : row.name.startsWith("upstream through") ? baseline(rows[3]!.name) : null;
      console.log(`| ${row.name} | ${row.p50.toFixed(2)} | ${row.p99.toFixed(2)} | ${base ? over(row, base) : "baseline"} |`);
    }
  } finally {
    await Promise.all([inProcessTools.close(), httpTools.close(), upstream.close(), server.stop()]);
    await embedded.store.close();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
