import { mkdtempSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { defineConfig } from "@playwright/test";
import { e2eServers } from "./servers";
// @ts-expect-error: a plain .mjs helper without type declarations
import { buildIfNeeded } from "../../scripts/lib/build-if-needed.mjs";

/**
 * Operator dashboard e2e: Debian's Chromium (never Playwright's download), E2E_WORKERS workers, each with a
 * real `next start` of the shared production build on a fresh SQLite database and data dir of its
 * own, so each has its own demo project, API key (demo-key.txt) and demo admin, seeded on first
 * start. The specs check figures against their own traffic in the demo project: two specs side by
 * side on one server would see each other's calls; one after another on a worker's server they do
 * not (as with one worker). E2E_WORKERS=1 runs them all on one server, as before.
 *
 * It builds the app first when the sources changed (scripts/lib/build-if-needed.mjs, shared with the
 * other suites). The config is loaded by the runner and again by each worker: everything decided
 * here goes into process.env once (the workers inherit it), so all agree on ports and data dirs; a
 * worker then picks its own server by its TEST_PARALLEL_INDEX (set before it loads this file).
 */
const root = path.resolve(__dirname, "../..");
process.env.NEXT_TELEMETRY_DISABLED = "1";
process.env.CHECKPOINT_DISABLE = "1";
process.env.PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD = "1";
// One by default: on a quiet 2-core machine the suite took 8.2 min on two workers (clean-clone CI,
// 2026-11-28) against 5.4 min on one; two Chromiums (software rendering) and two servers share the
// same 2 cores. E2E_WORKERS=2 gives each worker a server of its own.
const workers = Math.max(1, Number(process.env.E2E_WORKERS ?? 1));
if (!process.env.E2E_TMP) {
  // Runner process only (workers inherit E2E_TMP): build unless .next matches the sources.
  const cwd = process.cwd();
  process.chdir(root);
  buildIfNeeded();
  process.chdir(cwd);
  process.env.E2E_TMP = mkdtempSync(path.join(os.tmpdir(), "idemgate-e2e-"));
  // One port per worker and one for the screenshots' server (screens.spec.ts: pictures of a server
  // nothing else ran on, whichever specs shared a worker). Not 3659: browsers and fetch refuse it
  // (the Fetch standard's "bad ports"), the only one in this range.
  const chosen = new Set<number>();
  while (chosen.size < workers + 1) {
    const port = 3400 + Math.floor(Math.random() * 500);
    if (port !== 3659) chosen.add(port);
  }
  process.env.E2E_PORTS ??= [...chosen].join(",");
}
const servers = e2eServers();
// A worker's own server (the runner has no index: it only starts them all).
const own = servers.workers[Number(process.env.TEST_PARALLEL_INDEX ?? 0) % servers.workers.length]!;
// agent.ts reads the demo key from the data dir; specs that make projects of their own use the database.
process.env.E2E_DATA_DIR = own.dataDir;
process.env.E2E_DATABASE_URL = own.databaseUrl;
const baseURL = own.baseURL;

export default defineConfig({
  testDir: ".",
  testMatch: /.*\.spec\.ts$/,
  outputDir: path.join(root, "test-results/e2e-artifacts"),
  // Starts the servers (one per worker and the screenshots' own, all at once) and stops them at the end.
  globalSetup: "./global-setup.ts",
  // A spec file runs on one worker from start to end (its tests share setup, often serially).
  fullyParallel: false,
  workers,
  retries: 0,
  // A ceiling, not an expectation (every wait inside is on a condition): a spec that loads four
  // pages with an accessibility scan each took over 60 s beside another suite and two busy loops.
  timeout: 180_000,
  expect: { timeout: 15_000 },
  // list for people; json for .ci/run (stats.expected / stats.unexpected → its "N passed, N failed" line).
  reporter: [["list"], ["json", { outputFile: path.join(root, "test-results/e2e-results.json") }]],
  use: {
    baseURL,
    trace: "retain-on-failure",
    screenshot: "only-on-failure",
    launchOptions: {
      executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
      args: [
        "--no-sandbox",
        "--headless",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
      ],
    },
  },
});
