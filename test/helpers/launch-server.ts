import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync } from "node:fs";
import net from "node:net";
import path from "node:path";

export interface TestServer {
  baseUrl: string;
  process: ChildProcess;
  /** SIGTERM and wait for exit. */
  stop(): Promise<void>;
  /** SIGKILL and wait for exit: a crash, nothing flushed. */
  kill(): Promise<void>;
  output(): string;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.on("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** The keys of every launched server unless a test sets its own. */
export const SHARED_KEYS_ENV = {
  // The same values as the operator and gateway tests' own settings, so a server started with and
  // one without them on one database agree.
  IDEMGATE_SECRETS_KEY: Buffer.alloc(32, 7).toString("base64"),
  BETTER_AUTH_SECRET: "test-secret-0123456789abcdef0123456789abcdef",
};

/**
 * A real production server (scripts/serve.mjs, what `npm start` runs: the lean agent path in front
 * of Next.js) of the production build on its own port and database. Used by the tests (through
 * server.ts) and by the benchmarks, so it must not depend on vitest. `server: "next"` starts a bare
 * `next start` instead (the serving-path comparison in bench/serving-paths.ts). `checkout` is the
 * Idemgate tree to serve (its own build): this one, or the bench's `--baseline` worktree. `port` is
 * for a caller that must name the URL before the server starts (the e2e servers' BETTER_AUTH_URL).
 */
export async function launchServer(
  databaseUrl: string,
  tmpRoot: string,
  extraEnv: Record<string, string> = {},
  server: "serve" | "next" = "serve",
  checkout = process.cwd(),
  port?: number,
): Promise<TestServer> {
  // serve.mjs binds a port the system picks and names it: a port found free here could be taken by
  // another suite's server before this one binds it, and then this one's readiness probe would be
  // answered by that server. `next start` (and an older checkout's serve.mjs) cannot say which port
  // it got, so they get one found free.
  const ownPort = server === "serve" && path.resolve(checkout) === process.cwd();
  const requestedPort = port ?? (ownPort ? 0 : await freePort());
  const dataDir = mkdtempSync(path.join(tmpRoot, "data-"));
  const entry = server === "serve" ? ["scripts/serve.mjs"] : ["node_modules/next/dist/bin/next", "start"];
  const child = spawn(process.execPath, [...entry, "-p", String(requestedPort), "-H", "127.0.0.1"], {
    cwd: checkout,
    env: {
      // Like a real cluster, every server of a run shares its keys, so one started again on the same
      // database (a restart, a second instance) passes boot's shared-key check (lib/server/shared-keys.ts).
      ...SHARED_KEYS_ENV,
      ...process.env,
      DATABASE_URL: databaseUrl,
      IDEMGATE_SEED_DEMO: "false",
      IDEMGATE_DATA_DIR: dataDir,
      NEXT_TELEMETRY_DISABLED: "1",
      CHECKPOINT_DISABLE: "1",
      NODE_ENV: "production",
      ...extraEnv,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let log = "";
  child.stdout!.on("data", (chunk) => (log += chunk));
  child.stderr!.on("data", (chunk) => (log += chunk));
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));

  // Budgets for a starved CI box (two suites and two busy loops on two cores): a boot there took
  // tens of seconds. Each readiness request has its own timeout: Next.js holds a request until boot
  // is done, so one request without a bound could outwait the deadline (undici's own is 300 s).
  const deadline = Date.now() + READY_BUDGET_MS;
  let bound = requestedPort;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`server exited early (${child.exitCode}):\n${log}`);
    if (bound === 0) bound = Number(/serving on http:\/\/[^\s:]+:(\d+)/.exec(log)?.[1] ?? 0);
    if (bound !== 0 && (await answersLivez(bound))) break;
    if (Date.now() > deadline) {
      child.kill("SIGKILL");
      throw new Error(`server did not become ready within ${READY_BUDGET_MS / 1000} s:\n${log}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  const baseUrl = `http://127.0.0.1:${bound}`;

  const signal = async (sig: NodeJS.Signals) => {
    if (child.exitCode === null && child.signalCode === null) child.kill(sig);
    if (sig === "SIGKILL") return exited;
    // serve.mjs exits by itself within its drain budget; one that does not is a bug to see, not wait on.
    let timer: NodeJS.Timeout | undefined;
    const stuck = new Promise<"stuck">((resolve) => (timer = setTimeout(() => resolve("stuck"), STOP_BUDGET_MS)));
    const outcome = await Promise.race([exited, stuck]);
    clearTimeout(timer);
    if (outcome === "stuck") {
      child.kill("SIGKILL");
      await exited;
      throw new Error(`server did not exit within ${STOP_BUDGET_MS / 1000} s of ${sig}:\n${log}`);
    }
  };
  return { baseUrl, process: child, stop: () => signal("SIGTERM"), kill: () => signal("SIGKILL"), output: () => log };
}

/**
 * Next.js answers no request, this one included, before the boot hook (migrate, seed, the lean
 * path) has finished. The body is read to its end: an answer left unread keeps its connection busy,
 * and the server's graceful stop would wait for it (seconds, on every restart).
 */
async function answersLivez(port: number): Promise<boolean> {
  try {
    const res = await fetch(`http://127.0.0.1:${port}/api/livez`, { signal: AbortSignal.timeout(5_000) });
    await res.arrayBuffer();
    return res.ok;
  } catch {
    return false; // not listening yet, or still booting
  }
}

const READY_BUDGET_MS = 120_000;
/** Above serve.mjs's own backstop (its drain grace plus the stores' close budget). */
const STOP_BUDGET_MS = 60_000;
