// npm run chaos: the full-size chaos suite — AI SDK agents through the SDK adapter against a real
// gate over HTTP, each scenario beside the same agent without the gate — then its table.
// IDEMGATE_CHAOS_SIZE=small runs the npm-test size; IDEMGATE_CHAOS_SEED picks another seed.
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";

const report = path.join(mkdtempSync(path.join(os.tmpdir(), "idemgate-chaos-")), "chaos.md");
const result = spawnSync(
  process.execPath,
  ["node_modules/vitest/vitest.mjs", "run", "--config", "test/vitest.config.mts", "--project", "chaos", ...process.argv.slice(2)],
  {
    stdio: "inherit",
    env: {
      ...process.env,
      IDEMGATE_CHAOS_SIZE: process.env.IDEMGATE_CHAOS_SIZE ?? "full",
      IDEMGATE_CHAOS_REPORT: report,
      NEXT_TELEMETRY_DISABLED: "1",
      CHECKPOINT_DISABLE: "1",
    },
  },
);
if (existsSync(report)) console.log(`\n${readFileSync(report, "utf8")}`);
process.exit(result.status ?? 1);
