// npm run bench [-- options]: the side-by-side benchmark of the hot-path issue (see bench/README.md).
// Prints the table to stdout, progress to stderr, and writes bench/results/<YYYY-MM-DD>.json
// (a --smoke run writes to the temp directory).
import os from "node:os";
import path from "node:path";
import { env } from "../lib/env";
import { defaultOptions, parseArgs } from "./options";
import { runBench } from "./run";
import { renderReport } from "./table";

function localDate(date: Date): string {
  const pad = (n: number) => String(n).padStart(2, "0");
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`;
}

async function main() {
  process.env.NEXT_TELEMETRY_DISABLED = "1";
  process.env.CHECKPOINT_DISABLE = "1";
  const options = parseArgs(process.argv.slice(2), defaultOptions(env().IDEMGATE_SQLITE_SYNCHRONOUS));
  // A smoke run measures nothing worth keeping: its JSON goes to the temp directory.
  options.outFile ??= options.smoke ? path.join(os.tmpdir(), "idemgate-bench-smoke.json") : path.join("bench", "results", `${localDate(new Date())}.json`);
  const result = await runBench(options);
  console.log(renderReport(result));
  console.error(`[bench] wrote ${options.outFile}`);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
