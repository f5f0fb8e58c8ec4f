// A holder in its own process: `node --import tsx test/integration/starved-holder-child.ts <job.json>`.
// It begins the export through the SDK (2 s leases kept by heartbeats), prints "started <key>", then
// runs a tool whose main thread is busy for `busyMs` (no heartbeat can leave while it spins), or
// that never ends (the test SIGKILLs it). With `awaitAbort` the tool then waits for its signal (up
// to 60 s) and prints "aborted <reason>" when the SDK aborts it. Prints "done <status>" at the end.
import { appendFileSync, readFileSync } from "node:fs";
import { createGate } from "../../lib/sdk";

interface Job {
  baseUrl: string;
  apiKey: string;
  runId: string;
  effectsFile: string;
  busyMs: number | null;
  awaitAbort?: boolean;
}

const job = JSON.parse(readFileSync(process.argv[2]!, "utf8")) as Job;
const gate = createGate({ baseUrl: job.baseUrl, apiKey: job.apiKey, leaseSeconds: 2, maxWaitMs: 60_000 });

function untilAborted(signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    signal.addEventListener("abort", () => resolve(), { once: true });
    setTimeout(resolve, 60_000);
  });
}

gate
  .run({ runId: job.runId }, () =>
    gate.call({ tool: "export_report", step: "export" }, async (ctx) => {
      appendFileSync(job.effectsFile, "export\n");
      console.log(`started ${ctx.idempotencyKey}`);
      // A tool that never ends, as a hung call would: a ref'd timer keeps this process alive until the
      // test kills it (the SDK's heartbeat timer is unref'd, so an empty await would let it exit by itself).
      if (job.busyMs === null) await new Promise(() => setInterval(() => undefined, 60_000));
      // Starved: the event loop is blocked, so the heartbeat timers fire only once this ends.
      const until = Date.now() + job.busyMs!;
      while (Date.now() < until) {
        // spin
      }
      if (job.awaitAbort) {
        await untilAborted(ctx.signal);
        console.log(`aborted ${ctx.signal.aborted ? (ctx.signal.reason as Error).name : "no"}`);
      }
      return { rows: 42 };
    }),
  )
  .then(
    (outcome) => {
      console.log(`done ${outcome.status}`);
      process.exit(0);
    },
    (error) => {
      console.error("holder failed:", error);
      process.exit(2);
    },
  );
