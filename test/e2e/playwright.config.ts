import { mkdtempSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { defineConfig } from "@playwright/test";
// @ts-expect-error: a plain .mjs helper without type declarations
import { buildIfNeeded } from "../../scripts/lib/build-if-needed.mjs";

/**
 * Operator dashboard e2e: Debian's Chromium (never Playwright's download), one worker, a real
 * `next start` of the shared production build on a fresh SQLite database and data dir, so the
 * demo project, its API key (demo-key.txt) and the demo admin are seeded on first start.
 *
 * It builds the app first when the sources changed (scripts/lib/build-if-needed.mjs, shared with the
 * other suites). The config is loaded by the runner and again by each worker: everything decided here goes into
 * process.env once (the workers inherit it), so both agree on port and data dir.
 */
const root = path.resolve(__dirname, "../..");
process.env.NEXT_TELEMETRY_DISABLED = "1";
process.env.CHECKPOINT_DISABLE = "1";
process.env.PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD = "1";
if (!process.env.E2E_DATA_DIR) {
  // Runner process only (workers inherit E2E_DATA_DIR): build unless .next matches the sources.
  // Here, not in globalSetup, because Playwright starts the webServer before globalSetup.
  const cwd = process.cwd();
  process.chdir(root);
  buildIfNeeded();
  process.chdir(cwd);
  const tmp = mkdtempSync(path.join(os.tmpdir(), "idemgate-e2e-"));
  process.env.E2E_DATA_DIR = path.join(tmp, "data");
  process.env.E2E_DATABASE_URL = `file:${path.join(tmp, "e2e.db")}`;
  // Not 3659: browsers and fetch refuse it (the Fetch standard's "bad ports"), the only one in this range.
  let port = 3659;
  while (port === 3659) port = 3400 + Math.floor(Math.random() * 500);
  process.env.E2E_PORT ??= String(port);
}
const port = Number(process.env.E2E_PORT);
const baseURL = `http://127.0.0.1:${port}`;

export default defineConfig({
  testDir: ".",
  testMatch: /.*\.spec\.ts$/,
  outputDir: path.join(root, "test-results/e2e-artifacts"),
  globalTeardown: "./global-teardown.ts",
  fullyParallel: false,
  workers: 1,
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
  webServer: {
    // Directly, not through npx/npm: stopping a wrapper would leave the server running.
    command: `node scripts/serve.mjs -p ${port} -H 127.0.0.1`,
    cwd: root,
    url: `${baseURL}/api/v1/openapi.json`,
    reuseExistingServer: false,
    timeout: 120_000,
    stdout: "pipe",
    stderr: "pipe",
    env: {
      DATABASE_URL: process.env.E2E_DATABASE_URL!,
      IDEMGATE_DATA_DIR: process.env.E2E_DATA_DIR!,
      IDEMGATE_SEED_DEMO: "true",
      // Storm detector passes twice a second, so the storm test needs seconds, not minutes.
      IDEMGATE_STORM_INTERVAL_MS: "500",
      // Every spec signs in afresh from 127.0.0.1: the default 10 sign-ins a minute per address
      // (a guard against password guessing) would answer the suite's own sign-ins with 429.
      IDEMGATE_SIGN_IN_RATE_LIMIT: "100000",
      BETTER_AUTH_URL: baseURL,
      NODE_ENV: "production",
      NEXT_TELEMETRY_DISABLED: "1",
      CHECKPOINT_DISABLE: "1",
    },
  },
});
