// npm run chaos: the full-size chaos suite — AI SDK agents through the SDK adapter against a real
// gate over HTTP, each scenario beside the same agent without the gate — then its table.
// IDEMGATE_CHAOS_SIZE=small runs the npm-test size; IDEMGATE_CHAOS_SEED picks another seed.
// `npm run chaos -- --under-load [N]` runs it beside N CPU hogs (default: one busy loop per core),
// which it starts and stops itself, and prints the load averages it ran under: machines that run
// agents are loaded machines, and leases, connections and timers must hold there too.
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";

const args = process.argv.slice(2);
const loadAt = args.indexOf("--under-load");
let hogCount = 0;
if (loadAt >= 0) {
  const next = args[loadAt + 1];
  const given = next !== undefined && /^\d+$/.test(next);
  hogCount = given ? Number(next) : os.availableParallelism();
  args.splice(loadAt, given ? 2 : 1);
}

// Each hog is a process of its own spinning on one core until it is killed (no timer guesses how
// long the suite takes), at normal priority like the "other work" of a shared machine.
const hogs = Array.from({ length: hogCount }, () => spawn(process.execPath, ["-e", "for (;;) {}"], { stdio: "ignore" }));
const stopHogs = () => {
  for (const hog of hogs) hog.kill("SIGKILL");
};
process.on("exit", stopHogs);
for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => process.exit(130));
const loadBefore = os.loadavg();
if (hogCount > 0) console.log(`[chaos] ${hogCount} CPU hog(s) running beside the suite (load average before: ${loadBefore.map((n) => n.toFixed(2)).join(" ")})`);

const report = path.join(mkdtempSync(path.join(os.tmpdir(), "idemgate-chaos-")), "chaos.md");
const result = spawnSync(
  process.execPath,
  ["node_modules/vitest/vitest.mjs", "run", "--config", "test/vitest.config.mts", "--project", "chaos", ...args],
  {
    stdio: "inherit",
    env: {
      ...process.env,
      IDEMGATE_CHAOS_SIZE: process.env.IDEMGATE_CHAOS_SIZE ?? "full",
      IDEMGATE_CHAOS_REPORT: report,
      IDEMGATE_CHAOS_ALONE: "1",
      NEXT_TELEMETRY_DISABLED: "1",
      CHECKPOINT_DISABLE: "1",
    },
  },
);
const loadAfter = os.loadavg();
stopHogs();
if (existsSync(report)) console.log(`\n${readFileSync(report, "utf8")}`);
if (hogCount > 0) console.log(`\nRan beside ${hogCount} CPU hog(s); load average at the end (1/5/15 min): ${loadAfter.map((n) => n.toFixed(2)).join(" / ")}`);
process.exit(result.status ?? 1);
