// The slowest vitest files of a run, from its JSON report: printed at the end of `npm test` so every
// CI log says where the wall time went (vitest's own summary gives only totals).
// Standalone: node scripts/lib/slowest-files.mjs <vitest.json> [count] [--json]; --json prints them
// as test/file-seconds.json wants them (the order files start in: test/longest-first.mts).
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

/** [{ file, seconds, tests }] from a vitest JSON report, slowest first. */
export function slowestFiles(report, count = 25) {
  const root = process.cwd();
  return (report.testResults ?? [])
    .map((result) => ({
      file: path.relative(root, result.name),
      // A file's own wall time: from its first test's start to its last one's end (hooks included).
      seconds: Math.max(0, (result.endTime ?? 0) - (result.startTime ?? 0)) / 1000,
      tests: result.assertionResults?.length ?? 0,
    }))
    .sort((a, b) => b.seconds - a.seconds)
    .slice(0, count);
}

export function formatSlowest(rows) {
  const width = Math.max(0, ...rows.map((row) => row.file.length));
  return rows.map((row, i) => `${String(i + 1).padStart(3)}. ${row.file.padEnd(width)}  ${row.seconds.toFixed(1).padStart(7)} s  ${String(row.tests).padStart(4)} tests`).join("\n");
}

/** Prints the table; never fails the run (a missing or partial report prints nothing). */
export function printSlowest(reportFile, count = 25) {
  try {
    const rows = slowestFiles(JSON.parse(readFileSync(reportFile, "utf8")), count);
    if (rows.length === 0) return;
    console.log(`\nslowest ${rows.length} vitest files (wall time per file; files run side by side, so these do not add up to the total):`);
    console.log(formatSlowest(rows));
  } catch {
    // The run's own result line says what failed; this table is only an aid.
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const [reportFile, count = "25", format] = process.argv.slice(2);
  if (format === "--json") {
    const rows = slowestFiles(JSON.parse(readFileSync(reportFile, "utf8")), Number(count));
    console.log(JSON.stringify(Object.fromEntries(rows.map((row) => [row.file, Math.round(row.seconds)])), null, 2));
  } else {
    printSlowest(reportFile, Number(count));
  }
}
