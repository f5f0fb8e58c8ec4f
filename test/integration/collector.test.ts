import { spawn } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Collector } from "../../lib/server/collector";
import { openInsightStore } from "../../lib/store/sql/open-insight-store";
import { openStore } from "../../lib/store/hot/open-gate-store";
import { AdminClient, TEST_ADMIN_TOKEN } from "../helpers/admin-client";
import { TestClient } from "../helpers/client";
import { PROVIDERS, type TestDatabase, createTestDatabase } from "../helpers/databases";
import { createTestProject } from "../helpers/fixtures";
import { expectDecision, runOnce, sleep, uniqueRun, uniqueTool } from "../helpers/policy-fixtures";
import { type TestServer, startServer } from "../helpers/server";
import { scalar, sql } from "../helpers/sql";
import { waitFor } from "../helpers/storm-scenario";

const DAY = 86_400_000;
/** Enough old events that the collectors' batches overlap in time. */
const OLD = 100_000;
const ANCIENT = 10_000;

/** `npm run gc` as a separate process; resolves with what it printed. */
function runGc(databaseUrl: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["node_modules/tsx/dist/cli.mjs", "scripts/gc.ts"], {
      env: { ...process.env, DATABASE_URL: databaseUrl, CHECKPOINT_DISABLE: "1" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    child.stdout.on("data", (chunk) => (out += chunk));
    child.stderr.on("data", (chunk) => (out += chunk));
    child.on("exit", (code) => (code === 0 ? resolve(out) : reject(new Error(`gc exited ${code}:\n${out}`))));
  });
}

const purgedEvents = (output: string) => Number(/purged \d+ expired records, (\d+) events/.exec(output)?.[1] ?? NaN);

/** `count` begin events of `tool`, `stepMs` apart from `from`, written by one statement. */
function insertEvents(databaseUrl: string, projectId: string, tool: string, from: number, count: number, stepMs: number) {
  return sql(
    databaseUrl,
    `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ${count})
     INSERT INTO events (id, project_id, key, tool, run_id, type, decision, attempt, latency_us, at)
     SELECT 'evt_' || '${tool}_' || i, '${projectId}', 'key_' || (i % 7), '${tool}', 'run_' || (i % 3), 'begin',
       CASE WHEN i % 4 = 0 THEN 'execute' ELSE 'replay' END, 1, 100, ${from} + i * ${stepMs} FROM n`,
  );
}

describe.each(PROVIDERS)("%s: the collector", (provider) => {
  describe("in the server, on its interval", () => {
    let db: TestDatabase;
    let server: TestServer;
    let client: TestClient;
    let admin: AdminClient;

    beforeAll(async () => {
      db = await createTestDatabase(provider);
      const project = await createTestProject(db.url);
      server = await startServer(db.url, { IDEMGATE_ADMIN_TOKEN: TEST_ADMIN_TOKEN, IDEMGATE_COLLECTOR_INTERVAL_MS: "300" });
      client = new TestClient(server.baseUrl, project.apiKey);
      admin = new AdminClient(server.baseUrl, project.projectId);
    });

    afterAll(async () => {
      await server?.stop();
      await db?.drop();
    });

    it("purges records past their TTL, but never one whose lease is live", async () => {
      const tool = uniqueTool("otp");
      await admin.put(tool, { ttlSeconds: 1, leaseSeconds: 1 }, "test: short ttl");
      const done = { tool, runId: uniqueRun("gc"), stepId: "send" };
      const finished = await runOnce(client, done);

      // An attempt still running on a record whose TTL has passed (as a clock-skewed instance could leave it).
      const running = expectDecision(await client.begin({ tool, runId: uniqueRun("gc"), stepId: "send" }), "execute");
      await client.heartbeat(running.callId, running.leaseToken, 60);
      await sql(db.url, `UPDATE call_records SET expires_at = $1 WHERE id = $2`, [Date.now() - 60_000, running.callId]);

      await waitFor(async () => (await client.raw("GET", `/api/v1/calls/${finished.callId}`)).status === 404, 60_000, "the expired record to be purged");
      await sleep(700); // two more collector passes
      expect((await client.status(running.callId)).status).toBe("in_progress");
      expect((await client.complete(running.callId, { leaseToken: running.leaseToken, outcome: "succeeded" })).status).toBe("succeeded");

      // The purged key behaves as new: the next begin executes under a fresh call.
      const again = expectDecision(await client.begin(done), "execute");
      expect(again.callId).not.toBe(finished.callId);
    });
  });

  describe("as `npm run gc`, twice at once, beside a writer and an in-process collector", () => {
    let db: TestDatabase;
    let projectId: string;

    beforeAll(async () => {
      db = await createTestDatabase(provider);
      projectId = (await createTestProject(db.url)).projectId;
    });

    afterAll(async () => {
      await db?.drop();
    });

    it("purges old events in batches exactly once, keeps their rollups, and leaves new events and their counts alone", async () => {
      const now = Date.now();
      await insertEvents(db.url, projectId, "old", now - 40 * DAY, OLD, 10); // past event retention (30 d)
      await insertEvents(db.url, projectId, "ancient", now - 401 * DAY, ANCIENT, 10); // past rollup retention too
      const rollupsOf = (tool: string) => scalar(db.url, `SELECT COALESCE(SUM(total), 0) FROM event_rollups WHERE project_id = $1 AND tool = $2`, [projectId, tool]);
      expect(await rollupsOf("old")).toBe(OLD);
      expect(await rollupsOf("ancient")).toBe(ANCIENT);

      // New events keep arriving (through the gate's own store, trigger and all) while three collectors run.
      const gate = openStore({ databaseUrl: db.url });
      const insights = openInsightStore({ databaseUrl: db.url });
      const writer = (async () => {
        for (let i = 0; i < 300; i++) {
          await gate.appendEvent({
            id: `evt_live_${String(i).padStart(5, "0")}`, projectId, callId: null, key: "k", tool: "live", runId: "r", agentId: null, toolCallId: null,
            type: "begin", decision: "replay", attempt: 1, argsMismatch: false, latencyUs: 10, at: Date.now(), policyVersion: 0, detail: null, argsFingerprint: null, loopStep: false,
          });
          if (i % 20 === 0) await sleep(5);
        }
      })();
      const gcs = [runGc(db.url), runGc(db.url)];
      // The in-process one joins once the processes are deleting. Their start-up loads the whole
      // composition root through tsx (better-auth alone takes seconds on a loaded 2-core machine).
      const remaining = () => scalar(db.url, `SELECT COUNT(*) FROM events WHERE project_id = $1 AND tool = 'old'`, [projectId]);
      await waitFor(async () => (await remaining()) < OLD, 90_000, "the gc processes to start deleting");
      const local = await new Collector(insights, { eventRetentionDays: 30, rollupRetentionDays: 400, batchSize: 500 }).collect();
      const [outA, outB] = await Promise.all([...gcs, writer]);
      await insights.close();
      await gate.close();

      // Every old event deleted once: the three collectors' counts add up to exactly the old events.
      const counts = [purgedEvents(outA!), purgedEvents(outB!), local.events];
      expect(counts.reduce((a, b) => a + b), `${outA}\n${outB}`).toBe(OLD + ANCIENT);
      console.log(`[collector test] events purged by each of the three concurrent collectors: ${counts.join(", ")}`);
      expect(await scalar(db.url, `SELECT COUNT(*) FROM events WHERE project_id = $1 AND at < $2`, [projectId, now - 30 * DAY])).toBe(0);
      expect(await scalar(db.url, `SELECT COUNT(*) FROM events WHERE project_id = $1 AND tool = 'live'`, [projectId])).toBe(300);
      // Rollups outlive their events, and only the ones past the rollup retention go.
      expect(await rollupsOf("old")).toBe(OLD);
      expect(await rollupsOf("ancient")).toBe(0);
      expect(await rollupsOf("live")).toBe(300);
      expect(outA!).toMatch(/^\[idemgate gc\] purged \d+ expired records, \d+ events older than 30 d, \d+ rollups and \d+ closed storms older than 400 d in \d+ ms$/m);
    }, 180_000);
  });
});
