// A doomed agent process for the crash scenario: `node --import tsx test/chaos/crash-child.ts <job.json>`.
// It never finishes on its own: the parent SIGKILLs it while its agents are inside a tool.
import { readFileSync } from "node:fs";
import { type CrashJob, runCrashingAgents } from "./crash-agents";

// Like any real agent process (sockets, servers), this one stays up until something stops it — the
// hung tool calls alone would let Node exit by itself, which is a clean exit, not a crash.
setInterval(() => undefined, 60_000);

const job = JSON.parse(readFileSync(process.argv[2]!, "utf8")) as CrashJob;
runCrashingAgents(job).then(
  () => {
    console.error("crash-child: every agent finished, which the scenario never allows");
    process.exit(3);
  },
  (error) => {
    console.error("crash-child failed:", error);
    process.exit(2);
  },
);
