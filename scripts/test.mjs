// npm test: schema drift check, type check, then every vitest project (unit, integration, and
// any others in test/vitest.config.mts) against real databases and real `next start` servers.
// Ends with one plain "N passed, N failed" line for CI.
import { spawn, spawnSync } from "node:child_process";
import { closeSync, existsSync, mkdtempSync, openSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";

process.env.NEXT_TELEMETRY_DISABLED = "1";
process.env.CHECKPOINT_DISABLE = "1";
process.env.PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD = "1";

const started = Date.now();
/** The unit project's run beside the build (below). */
let unitChild = null;
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
// imports are left out (-T): they vanish when compiled, so they cannot load a module half-made.
const cycleCheck = ["node_modules/dpdm/lib/bin/dpdm.js", "--no-warning", "--no-tree", "--no-progress", "--circular", "--exit-code", "circular:1", "-T"];
const cycles = beside("no import cycles in lib/", [...cycleCheck, "--exclude", "node_modules|lib/store/generated", "lib/**/*.ts", "lib/**/*.tsx"]);

const extra = process.argv.slice(2);
const reportDir = mkdtempSync(path.join(os.tmpdir(), "idemgate-report-"));
const vitestArgs = (projects, report) => [
  "node_modules/vitest/vitest.mjs",
  "run",
  "--config",
  "test/vitest.config.mts",
  ...projects.flatMap((name) => ["--project", name]),
  // A filter (npm test -- <filter>) may match files of one run only; a filter that matches nothing
  // at all still fails (no tests in either report).
  "--passWithNoTests",
  "--reporter=default",
  "--reporter=json",
  `--outputFile.json=${report}`,
  ...extra,
];

// The unit project needs no build: it runs beside the build, its output held until the build is
// done. Most of its files wait on timers (heartbeats, backoffs), so on 2 cores it costs the build
// little and takes its ~45 s off the run.
console.log("\n▶ vitest unit project, beside the build (its output follows the build's)");
const unitReport = path.join(reportDir, "unit.json");
// Into a file, not a pipe: the build below blocks this process, and a pipe nobody reads would stall it.
const unitLog = path.join(reportDir, "unit.log");
const unitLogFd = openSync(unitLog, "w");
unitChild = spawn(process.execPath, vitestArgs(["unit"], unitReport), { stdio: ["ignore", unitLogFd, unitLogFd] });
const unit = new Promise((resolve) => unitChild.on("close", (code) => resolve(code ?? 1)));

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

/** Passed and failed tests of one vitest run, from its JSON report and exit status. */
function counts(report, status) {
  let passed = 0;
  let failed = 0;
  let total = 0;
  try {
    const json = JSON.parse(readFileSync(report, "utf8"));
    passed = json.numPassedTests ?? 0;
    total = json.numTotalTests ?? 0;
    failed = (json.numFailedTests ?? 0) + (json.numTotalTestSuites > 0 && json.success === false && json.numFailedTests === 0 ? 1 : 0);
  } catch {
    failed = 1;
  }
  if (status !== 0 && failed === 0) failed = 1;
  return { passed, failed, total };
}

const unitStatus = await unit;
closeSync(unitLogFd);
console.log("\n▶ vitest unit project (ran beside the build)");
process.stdout.write(readFileSync(unitLog));
const unitCounts = counts(unitReport, unitStatus);

const report = path.join(reportDir, "vitest.json");
const status = run("vitest integration and chaos projects", vitestArgs(["integration", "chaos"], report));
const rest = counts(report, status);

let passed = unitCounts.passed + rest.passed;
let failed = unitCounts.failed + rest.failed;
if (unitCounts.total + rest.total === 0) {
  console.error("no vitest test matched");
  failed += 1;
}

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
  // A check that failed before the unit run ended: it is not left running on its own.
  if (unitChild && unitChild.exitCode === null && unitChild.signalCode === null) unitChild.kill("SIGTERM");
  console.log(`\ntest wall time: ${((Date.now() - started) / 1000).toFixed(1)} s`);
  console.log(`${p} passed, ${f} failed`);
  process.exit(f > 0 ? 1 : 0);
}
