import { describe, expect, it } from "vitest";
import { PROVIDERS, createTestDatabase } from "../helpers/databases";
import { type TestServer, startServer } from "../helpers/server";
import { waitFor } from "../helpers/storm-scenario";

const INTERVAL_MS = 20;
const FAILED = /\[idemgate\] (alert delivery|storm detector|collector|MCP session purge) failed \((\d+) in a row; next try in (\d+) ms\)/g;

/**
 * A server whose database disappears under it (#16, robustness: the Postgres database dropped) kept
 * every background loop retrying at its interval for good. They now back off: every failure in a
 * row at least doubles the wait (half of it jittered), up to a bound. The test reads the waits the
 * server logs, by condition: no clock is compared. (A SQLite file deleted under a server fails
 * nothing: its open connections keep the unlinked file.)
 */
describe.runIf(PROVIDERS.includes("postgres"))("postgres: a server whose database is dropped", () => {
  it("backs its background loops off, doubling the wait per failure in a row", async () => {
    const db = await createTestDatabase("postgres");
    let server: TestServer | undefined;
    try {
      server = await startServer(db.url, {
        IDEMGATE_ALERT_INTERVAL_MS: String(INTERVAL_MS),
        IDEMGATE_STORM_INTERVAL_MS: String(INTERVAL_MS),
        IDEMGATE_COLLECTOR_INTERVAL_MS: String(INTERVAL_MS),
      });
      await db.drop();

      const live = server;
      const failures = () => [...live.output().matchAll(FAILED)].map((m) => ({ loop: m[1]!, inRow: Number(m[2]), nextMs: Number(m[3]) }));
      // Six failures in a row of one loop: without backoff that would be ~120 ms of retrying.
      await waitFor(async () => failures().some((f) => f.inRow >= 6), 180_000, "a loop's sixth failure in a row");
      const seen = failures();
      for (const { inRow, nextMs } of seen) {
        const full = Math.min(60_000, INTERVAL_MS * 2 ** inRow);
        expect(nextMs).toBeGreaterThanOrEqual(full / 2);
        expect(nextMs).toBeLessThanOrEqual(full);
      }
      // Every loop's count climbs one by one: none restarts from zero while its store is gone.
      for (const loop of new Set(seen.map((f) => f.loop))) {
        const counts = seen.filter((f) => f.loop === loop).map((f) => f.inRow);
        expect(counts).toEqual(counts.map((_, i) => counts[0]! + i));
      }
    } finally {
      await server?.stop();
      await db.drop();
    }
  }, 240_000);
});
