// npm test: schema drift check, type check, then every vitest project (unit, integration, and
// any others in test/vitest.config.mts) against real databases and real `next start` servers.
// Ends with one plain "N passed, N failed" line for CI.
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { printSlowest } from "./lib/slowest-files.mjs";

process.env.NEXT_TELEMETRY_DISABLED = "1";
process.env.CHECKPOINT_DISABLE = "1";
process.env.PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD = "1";

const started = Date.now();
/** vitest's JSON report, once vitest has run (finish prints its slowest files from it). */
let report = null;
const run = (label, args) => {
  console.log(`\n▶ ${label}`);
  const result = spawnSync(process.execPath, args, { stdio: "inherit" });
  return result.status ?? 1;
};

if (run("schemas in sync", ["scripts/sync-postgres-schema.mjs", "--check"]) !== 0) finish(0, 1);
// The type check and the import-cycle check (one core each, ~40 s and ~8 s of CPU) run while the
// app builds: on 2 cores the three side by side end sooner than one after the other.
const beside = (label, args) => {
  console.log(`\n▶ ${label}, beside the build`);
  return new Promise((resolve) => {
    const child = spawn(process.execPath, args, { stdio: "inherit" });
    child.on("close", (code) => resolve(code ?? 1));
  });
};
const typeCheck = beside("type check", ["node_modules/typescript/bin/tsc", "--noEmit", "-p", "."]);
// Dynamic imports count: a cycle hidden behind `await import()` is still two modules that need each
// other at run time (lib/server/composition-root.ts builds services in order instead). Type-only
// imports count too: they cannot load a module half-made, but two modules that name each other's
// types are still one thing to read, and the shared type belongs in a module both import.
const cycleCheck = ["node_modules/dpdm/lib/bin/dpdm.js", "--no-warning", "--no-tree", "--no-progress", "--circular", "--exit-code", "circular:1"];
const cycles = beside("no import cycles in lib/", [...cycleCheck, "--exclude", "node_modules|lib/store/generated", "lib/**/*.ts", "lib/**/*.tsx"]);

// One build for both suites, before either starts (each would otherwise build if the sources changed).
const { buildIfNeeded } = await import("./lib/build-if-needed.mjs");
buildIfNeeded();
if ((await cycles) !== 0) {
  console.error("import cycles in lib/");
  finish(0, 1);
}
if ((await typeCheck) !== 0) {
  console.error("type check failed");
  finish(0, 1);
}

report = path.join(mkdtempSync(path.join(os.tmpdir(), "idemgate-report-")), "vitest.json");
const extra = process.argv.slice(2);

const status = run("vitest", [
  "node_modules/vitest/vitest.mjs",
  "run",
  "--config",
  "test/vitest.config.mts",
  "--reporter=default",
  "--reporter=json",
  `--outputFile.json=${report}`,
  ...extra,
]);

let passed = 0;
let failed = 0;
try {
  const json = JSON.parse(readFileSync(report, "utf8"));
  passed = json.numPassedTests ?? 0;
  failed = (json.numFailedTests ?? 0) + (json.numTotalTestSuites > 0 && json.success === false && json.numFailedTests === 0 ? 1 : 0);
} catch {
  failed = 1;
}
if (status !== 0 && failed === 0) failed = 1;

// The dashboard in a real browser (Debian's Chromium, never Playwright's own download), after
// vitest rather than beside it: on 2 cores the two together took 20 minutes, one after the other
// 13 (vitest alone 9.1, the browser suite alone 2.9): Chromium's software rendering and the
// integration suites' servers starve each other, and every wait on a condition stretches.
// A filtered vitest run (npm test -- <filter>) skips the browser suite.
const chromium = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const e2eReport = "test-results/e2e-results.json";
if (extra.length === 0 && existsSync(chromium)) {
  rmSync(e2eReport, { force: true });
  const e2eStatus = run("playwright (dashboard e2e)", ["node_modules/@playwright/test/cli.js", "test", "-c", "test/e2e/playwright.config.ts"]);
  let e2eFailed = 0;
  try {
    const stats = JSON.parse(readFileSync(e2eReport, "utf8")).stats;
    passed += (stats.expected ?? 0) + (stats.flaky ?? 0);
    e2eFailed = stats.unexpected ?? 0;
  } catch {
    e2eFailed = 1;
  }
  if (e2eStatus !== 0 && e2eFailed === 0) e2eFailed = 1;
  failed += e2eFailed;
} else if (extra.length > 0) {
  // A filtered run skipped the browser suite on purpose.
} else if (process.env.CI === "true") {
  console.error(`CI=true but no Chromium at ${chromium}: the dashboard e2e cannot be skipped in CI`);
  failed += 1;
} else {
  console.warn(`\n[idemgate tests] no Chromium at ${chromium}: dashboard e2e SKIPPED (apt-get install chromium)\n`);
}
finish(passed, failed);

function finish(p, f) {
  if (report) printSlowest(report, 25);
  console.log(`\ntest wall time: ${((Date.now() - started) / 1000).toFixed(1)} s`);
  console.log(`${p} passed, ${f} failed`);
  process.exit(f > 0 ? 1 : 0);
}
