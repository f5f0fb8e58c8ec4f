// Serving paths for the agent API, side by side in one run (issue 21 §1): a replaying begin and a
// fresh pair (begin + complete) through `next start` (Next.js's router) and through scripts/serve.mjs
// (the lean agent path in front of Next.js, what `npm start` runs), beside a bare Next.js route and
// a bare node:http JSON route. Same production build, one fresh SQLite database per server (FULL),
// 1 keep-alive client; rounds alternate between the servers so load on a shared machine falls on
// all alike. Prints medians and ratios.  npx tsx bench/serving-paths.ts [--rounds 6] [--n 400]
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseDatabaseUrl } from "../lib/store/connection/database-url";
import { ensureMigrated } from "../lib/store/connection/migrate";
import { createTestProject } from "../test/helpers/fixtures";
import { type TestServer, launchServer } from "../test/helpers/launch-server";
import { KeepAliveClient } from "./http-client";
// @ts-expect-error plain .mjs helper without types
import { buildIfNeeded } from "../scripts/lib/build-if-needed.mjs";

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i === -1 ? fallback : Number(process.argv[i + 1]);
};
const ROUNDS = arg("rounds", 6);
const N = arg("n", 400);

const BARE_SERVER = `
const http = require("node:http");
const server = http.createServer((req, res) => {
  const body = JSON.stringify({ ok: true });
  res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(body) });
  res.end(body);
});
server.listen(0, "127.0.0.1", () => console.log("http://127.0.0.1:" + server.address().port));
`;

type Op = (client: KeepAliveClient, i: number) => Promise<void>;

async function timed(client: KeepAliveClient, op: Op, n: number, into: number[]): Promise<void> {
  for (let i = 0; i < n; i++) {
    const t = process.hrtime.bigint();
    await op(client, i);
    into.push(Number(process.hrtime.bigint() - t) / 1e6);
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

function ok(res: { status: number; body: { decision?: string } }, decision?: string): void {
  if (res.status !== 200 || (decision && res.body.decision !== decision)) throw new Error(`unexpected answer ${res.status} ${JSON.stringify(res.body)}`);
}

async function main() {
  buildIfNeeded();
  const tmp = mkdtempSync(path.join(os.tmpdir(), "idemgate-paths-"));
  const env = { IDEMGATE_STORM_INTERVAL_MS: "0", IDEMGATE_COLLECTOR_INTERVAL_MS: "0", BETTER_AUTH_SECRET: "idemgate-bench-secret-0123456789abcdef" };
  // The bare node:http floor in a process of its own, like the servers it is compared with.
  const bare = spawn(process.execPath, ["-e", BARE_SERVER], { stdio: ["ignore", "pipe", "inherit"] });
  const bareUrl = await new Promise<string>((resolve) => bare.stdout!.once("data", (chunk: Buffer) => resolve(chunk.toString().trim())));
  const subjects: { name: string; server: TestServer; client: KeepAliveClient; run: string }[] = [];
  try {
    for (const kind of ["next", "serve"] as const) {
      const url = `file:${path.join(tmp, `${kind}.db`)}`;
      await ensureMigrated(parseDatabaseUrl(url));
      const project = await createTestProject(url);
      const server = await launchServer(url, tmp, env, kind);
      const client = new KeepAliveClient(server.baseUrl, { authorization: `Bearer ${project.apiKey}` });
      subjects.push({ name: kind === "next" ? "next start (Next.js router)" : "serve.mjs (lean agent path)", server, client, run: `run_${kind}` });
    }
    const bareClient = new KeepAliveClient(bareUrl);
    const times = new Map<string, number[]>();
    const series = (name: string) => times.get(name) ?? (times.set(name, []), times.get(name)!);
    // One completed call per server, replayed.
    for (const s of subjects) {
      const first = await s.client.post("/api/v1/calls/begin", { tool: "send_email", runId: "warm", stepId: "s", args: { to: "a" }, toolCallId: "tc_warm" });
      ok(first, "execute");
      ok(await s.client.post(`/api/v1/calls/${first.body.callId}/complete`, { leaseToken: first.body.leaseToken, outcome: "succeeded", result: { id: 1 } }));
    }
    let fresh = 0;
    for (let round = 0; round < ROUNDS; round++) {
      for (const s of subjects) {
        await timed(s.client, async (c) => ok(await c.get("/api/livez")), N, series(`bare Next route GET /api/livez via ${s.name}`));
        await timed(
          s.client,
          async (c) => {
            // The warm call again, with its tool-call id: a transport retry, replayed (never a loop step).
            ok(await c.post("/api/v1/calls/begin", { tool: "send_email", runId: "warm", stepId: "s", args: { to: "a" }, toolCallId: "tc_warm" }), "replay");
          },
          N,
          series(`replaying begin via ${s.name}`),
        );
        await timed(
          s.client,
          async (c) => {
            const begun = await c.post("/api/v1/calls/begin", { tool: "charge", runId: `fresh_${fresh++}`, stepId: "s", args: { n: 1 } });
            ok(begun, "execute");
            ok(await c.post(`/api/v1/calls/${begun.body.callId}/complete`, { leaseToken: begun.body.leaseToken, outcome: "succeeded", result: { ok: true } }));
          },
          Math.floor(N / 2),
          series(`fresh pair via ${s.name}`),
        );
      }
      await timed(bareClient, async (c) => ok(await c.get("/")), N, series("bare node:http JSON route"));
    }
    const rows = [...times].map(([name, xs]) => ({ name, p50: median(xs) }));
    const p50 = (name: string) => rows.find((r) => r.name === name)!.p50;
    for (const row of rows) console.log(`${row.p50.toFixed(3).padStart(8)} ms p50  ${row.name}`);
    const floor = p50("bare Next route GET /api/livez via next start (Next.js router)");
    const nodeFloor = p50("bare node:http JSON route");
    for (const s of subjects) {
      const replay = p50(`replaying begin via ${s.name}`);
      console.log(`replaying begin via ${s.name}: ${(replay / floor).toFixed(2)}× bare Next route, ${(replay / nodeFloor).toFixed(2)}× bare node:http`);
    }
    const lean = p50("replaying begin via serve.mjs (lean agent path)");
    const nextRoute = p50("replaying begin via next start (Next.js router)");
    console.log(`lean ÷ Next route, replaying begin: ${(lean / nextRoute).toFixed(2)}; fresh pair: ${(p50("fresh pair via serve.mjs (lean agent path)") / p50("fresh pair via next start (Next.js router)")).toFixed(2)}`);
    bareClient.close();
  } finally {
    for (const s of subjects) {
      s.client.close();
      await s.server.stop();
    }
    bare.kill();
    rmSync(tmp, { recursive: true, force: true });
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
