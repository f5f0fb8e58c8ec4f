import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AdminClient, TEST_ADMIN_TOKEN } from "../helpers/admin-client";
import { PROVIDERS, type Provider, type TestDatabase, createTestDatabase } from "../helpers/databases";
import { createTestProject } from "../helpers/fixtures";
import { OPERATOR_ENV, OperatorClient, ROOT } from "../helpers/operator-client";
import { type TestServer, startServer } from "../helpers/server";

/**
 * The Python SDK (python/) against real `npm start` servers, one per database: its unittest suites
 * (python/tests) run in Python processes, one per module and all at once (they wait on leases and
 * sleeps, not on the CPU), and every Python test is one test here, so npm test's count includes them.
 */
const PYTHON = process.env.PYTHON ?? "python3";
const PY_ROOT = path.resolve(import.meta.dirname, "../../python");
const MODULE_BUDGET_MS = 180_000;
/** tests/report.py's exit code under Python < 3.10. */
const TOO_OLD = 3;

interface PyTest {
  id: string;
  outcome: "ok" | "failure" | "error" | "skipped";
  seconds: number;
  detail: string;
}
interface PyModuleRun {
  module: string;
  code: number | null;
  output: string;
  tests: PyTest[];
}

/**
 * The Python tests, listed without running them (no gate needed to list). No Python ≥ 3.10 here:
 * skipped with a message, except under CI=true (.ci/run installs Debian's python3).
 */
function listPythonTests(): string[] {
  const listed = spawnSync(PYTHON, ["-m", "tests.report", "--list"], { cwd: PY_ROOT, encoding: "utf8" });
  if (listed.status === 0) return JSON.parse(listed.stdout) as string[];
  const why = listed.error ? String(listed.error) : listed.stderr;
  if (process.env.CI === "true" || !(listed.error || listed.status === TOO_OLD)) {
    throw new Error(`listing the Python SDK's tests with ${PYTHON} failed (${listed.status}): ${why}`);
  }
  console.warn(`\n[idemgate tests] no Python >= 3.10 as ${PYTHON}: the Python SDK tests are SKIPPED (${why.trim()})\n`);
  return [];
}

const TEST_IDS = listPythonTests();
const MODULES = [...new Set(TEST_IDS.map((id) => id.split(".")[0]!))];

function runModule(module: string, env: Record<string, string>): Promise<PyModuleRun> {
  const report = path.join(mkdtempSync(path.join(tmpdir(), "idemgate-py-")), "report.json");
  const child = spawn(PYTHON, ["-m", "tests.report", "--json", report, `${module}.py`], {
    cwd: PY_ROOT,
    env: { ...process.env, ...env, PYTHONDONTWRITEBYTECODE: "1", PYTHONUNBUFFERED: "1" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout.on("data", (chunk) => (output += chunk));
  child.stderr.on("data", (chunk) => (output += chunk));
  // A hung module is killed (and reported) well inside the hook's budget.
  const timer = setTimeout(() => child.kill("SIGKILL"), MODULE_BUDGET_MS);
  return new Promise((resolve) => {
    child.on("close", (code) => {
      clearTimeout(timer);
      let tests: PyTest[] = [];
      try {
        tests = (JSON.parse(readFileSync(report, "utf8")) as { tests: PyTest[] }).tests;
      } catch {
        // No report: the process died before writing it; its output says why.
      }
      resolve({ module, code, output, tests });
    });
  });
}

interface ProviderRun {
  db: TestDatabase;
  server: TestServer;
  modules: PyModuleRun[];
}

/** One server per provider, both suites at once: the group's wall time is the slower of the two. */
async function runProvider(provider: Provider): Promise<ProviderRun> {
  const db = await createTestDatabase(provider);
  const project = await createTestProject(db.url, "python sdk");
  const server = await startServer(db.url, { ...OPERATOR_ENV, IDEMGATE_ADMIN_TOKEN: TEST_ADMIN_TOKEN });
  const operator = await OperatorClient.signIn(server.baseUrl, ROOT.email, ROOT.password);
  // Set once here rather than by each of the concurrent Python processes (tests/support.py).
  await new AdminClient(server.baseUrl, project.projectId).put("*", { loop: { enabled: false } }, "python sdk tests: loops only where a test turns them on");
  const env = {
    IDEMGATE_DEFAULTS_SET: "1",
    IDEMGATE_URL: server.baseUrl,
    IDEMGATE_API_KEY: project.apiKey,
    IDEMGATE_PROJECT_ID: project.projectId,
    IDEMGATE_ADMIN_TOKEN: TEST_ADMIN_TOKEN,
    IDEMGATE_OPERATOR_COOKIE: operator.cookie!,
  };
  const modules = await Promise.all(MODULES.map((module) => runModule(module, env)));
  return { db, server, modules };
}

const runs = new Map<Provider, ProviderRun>();

beforeAll(async () => {
  if (TEST_IDS.length === 0) return;
  const settled = await Promise.allSettled(PROVIDERS.map(async (provider) => runs.set(provider, await runProvider(provider))));
  const failed = settled.find((s) => s.status === "rejected");
  if (failed) throw (failed as PromiseRejectedResult).reason;
});

afterAll(async () => {
  for (const run of runs.values()) {
    await run.server.stop();
    await run.db.drop();
  }
});

describe.skipIf(TEST_IDS.length === 0).each(PROVIDERS)("%s: the Python SDK (python/tests, unittest)", (provider) => {
  it("every Python module ran to the end and exited 0, with every listed test reported", () => {
    const run = runs.get(provider)!;
    for (const module of run.modules) expect(module.code, `${module.module}:\n${module.output}`).toBe(0);
    expect(run.modules.flatMap((m) => m.tests.map((t) => t.id)).sort()).toEqual([...TEST_IDS].sort());
  });

  it.each(TEST_IDS)("%s", (id) => {
    const run = runs.get(provider)!;
    const test = run.modules.flatMap((m) => m.tests).find((t) => t.id === id);
    const module = run.modules.find((m) => m.module === id.split(".")[0]);
    expect(test, `not reported:\n${module?.output ?? ""}`).toBeDefined();
    expect(test!.outcome, test!.detail).toBe("ok");
  });
});
