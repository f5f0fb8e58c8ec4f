import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { BeginRequest } from "../../lib/contract/v1";
import { AdminClient, TEST_ADMIN_TOKEN } from "../helpers/admin-client";
import { PROVIDERS, type TestDatabase, createTestDatabase } from "../helpers/databases";
import { createTestProject } from "../helpers/fixtures";
import { type CallTrace, FailoverAgent, type Instance } from "../helpers/failover-agent";
import { runOnce, sleep, uniqueRun, uniqueTool } from "../helpers/policy-fixtures";
import { adminQuery } from "../helpers/postgres";
import { TestClient } from "../helpers/client";
import { type TestServer, startServer } from "../helpers/server";
import { seedRetentionBacklog } from "../helpers/retention-backlog";
import { scalar } from "../helpers/sql";
import { waitFor } from "../helpers/storm-scenario";

const INSTANCES = 3;
/** The backlog, written in one transaction so that every instance's collector finds it at once. */
const EXPIRED_RECORDS = 10_000;
const OLD_EVENTS = 15_000; // past the event retention (30 d): deleted, their rollups stay
const ANCIENT_EVENTS = 3_000; // past the rollup retention (400 d) too: rollups deleted as well
/** Records that look purgeable at a glance but must stay. */
const LIVE_LEASE_RECORDS = 50; // TTL passed, but an attempt still holds a live lease
const UNEXPIRED_RECORDS = 2_000;
/** Real completed calls whose TTL the test backdates: agents race to begin them again mid-purge. */
const REBEGUN = 60;
/** Any statement on this database that waits this long for a lock fails (and the test with it). */
const LOCK_TIMEOUT = "2s";

interface Purges {
  records: number;
  events: number;
  rollups: number;
  storms: number;
  passes: number;
}

/** What one instance's background collector reported purging, summed over its passes. */
function purgesIn(output: string): Purges {
  const total: Purges = { records: 0, events: 0, rollups: 0, storms: 0, passes: 0 };
  for (const m of output.matchAll(/\[idemgate\] collector purged (\d+) records, (\d+) events, (\d+) rollups, (\d+) storms/g)) {
    total.records += Number(m[1]);
    total.events += Number(m[2]);
    total.rollups += Number(m[3]);
    total.storms += Number(m[4]);
    total.passes++;
  }
  return total;
}

/**
 * Scale-out, the background collector: every instance runs it (here every 200 ms), all at once,
 * over a backlog they find together, while agents keep calling — including begins on the very
 * records being purged. Each row is deleted by exactly one of them, the counts they report add up
 * to the backlog, rollups stay exact, and nobody waits long for a collector's lock.
 */
describe.skipIf(!PROVIDERS.includes("postgres"))(`postgres: the collector on ${INSTANCES} instances at once`, () => {
  let db: TestDatabase;
  let projectId: string;
  let apiKey: string;
  let servers: TestServer[] = [];
  let instances: Instance[];

  beforeAll(async () => {
    db = await createTestDatabase("postgres");
    // Every session of the servers (pools and collectors) inherits it: a long lock fails loudly.
    await adminQuery(`ALTER DATABASE ${new URL(db.url).pathname.slice(1)} SET lock_timeout = '${LOCK_TIMEOUT}'`);
    ({ projectId, apiKey } = await createTestProject(db.url));
    const env = { IDEMGATE_ADMIN_TOKEN: TEST_ADMIN_TOKEN, IDEMGATE_COLLECTOR_INTERVAL_MS: "200", IDEMGATE_STORM_INTERVAL_MS: "0" };
    servers = await Promise.all(Array.from({ length: INSTANCES }, () => startServer(db.url, env)));
    instances = servers.map((server, i) => ({ name: `gate${i}`, baseUrl: server.baseUrl }));
  });

  afterAll(async () => {
    await Promise.all(servers.map((server) => server.stop()));
    await db?.drop();
  });

  it("deletes every purgeable row exactly once, keeps rollups exact and the rest intact, and begins keep flowing", async () => {
    // Calls that will be begun again while the collectors purge them (their TTL is backdated below).
    const rebegunTool = uniqueTool("rebegun");
    // Each of these runs repeats one call on purpose (run, run again after the TTL, replay): not a loop.
    await new AdminClient(instances[0]!.baseUrl, projectId).put(rebegunTool, { loop: { enabled: false } }, "test: re-begun after the TTL");
    const rebegun: BeginRequest[] = Array.from({ length: REBEGUN }, (_, i) => ({ tool: rebegunTool, runId: uniqueRun(`re${i}`), stepId: "send", args: { n: i } }));
    const clients = instances.map((instance) => new TestClient(instance.baseUrl, apiKey));
    for (let i = 0; i < REBEGUN; i += 12) {
      await Promise.all(rebegun.slice(i, i + 12).map((request, j) => runOnce(clients[(i + j) % INSTANCES]!, request)));
    }

    const agent = new FailoverAgent(apiKey);
    const liveTool = uniqueTool("live");
    let committed = false;
    let drained = false;
    let freshDuringPurge = 0;
    const fresh: CallTrace[] = [];
    const freshWorker = async (w: number) => {
      for (let n = 0; !drained; n++) {
        const request = { tool: liveTool, runId: uniqueRun(`live${w}_${n}`), stepId: "act", args: { w, n } };
        fresh.push(await agent.run([instances[(w + n) % INSTANCES]!], request, { toolMs: 0, result: () => ({ w, n }) }));
        if (committed && !drained) freshDuringPurge++;
      }
    };
    let failure: unknown;
    const fail = (error: unknown) => void (failure = error);
    // Fresh calls through every instance, from before the backlog appears until it is gone.
    const freshTraffic = Promise.all(Array.from({ length: 6 }, (_, w) => freshWorker(w))).catch(fail);

    const seedStarted = performance.now();
    let seedMs = 0;
    let drainMs = 0;
    let ancientRollupRows = 0;
    const races: CallTrace[][] = [];
    let rebegins: Promise<unknown> = Promise.resolve();
    try {
      ancientRollupRows = await seedRetentionBacklog(db.url, projectId, {
        expiredRecords: EXPIRED_RECORDS,
        liveLeaseRecords: LIVE_LEASE_RECORDS,
        unexpiredRecords: UNEXPIRED_RECORDS,
        oldEvents: OLD_EVENTS,
        ancientEvents: ANCIENT_EVENTS,
        backdateTool: rebegunTool,
      });
      committed = true;

      seedMs = Math.round(performance.now() - seedStarted);
      // From the commit on, all collectors drain the backlog while agents keep calling, and two
      // agents per re-begun call race through two instances to run it again.
      const backlog = () =>
        scalar(
          db.url,
          `SELECT (SELECT COUNT(*) FROM call_records WHERE project_id = $1 AND tool = 'expired')
                + (SELECT COUNT(*) FROM events WHERE project_id = $1 AND tool IN ('old', 'ancient'))
                + (SELECT COUNT(*) FROM event_rollups WHERE project_id = $1 AND tool = 'ancient')`,
          [projectId],
        );
      const racer = async (start: number) => {
        for (let i = start; i < REBEGUN; i += 8) {
          const request = { ...rebegun[i]!, waitMs: 5_000 };
          const result = () => ({ again: i });
          races.push(
            await Promise.all([
              agent.run([instances[i % INSTANCES]!], request, { toolMs: 5, result }),
              agent.run([instances[(i + 1) % INSTANCES]!], request, { toolMs: 5, result }),
            ]),
          );
        }
      };
      rebegins = Promise.all(Array.from({ length: 8 }, (_, s) => racer(s))).catch(fail);
      await waitFor(
        async () => {
          if (failure) throw failure;
          return (await backlog()) === 0;
        },
        60_000,
        "the backlog to be purged",
      );
      drainMs = Math.round(performance.now() - seedStarted) - seedMs;
    } finally {
      // Also on a failure: the traffic must end with the test.
      drained = true;
    }
    await Promise.all([freshTraffic, rebegins]);
    if (failure) throw failure;

    // Begins kept succeeding through the purge on every instance: none waited out the lock timeout.
    expect(agent.exchanges.filter((x) => x.status !== 200)).toEqual([]);
    for (const server of servers) expect(server.output()).not.toMatch(/collector failed/);

    // Each re-begun call executed exactly once more, whether the collector got to its old record first or not.
    expect(races).toHaveLength(REBEGUN);
    for (const pair of races) {
      expect(pair.flatMap((trace) => trace.executions), JSON.stringify(pair)).toHaveLength(1);
    }
    const claimedInPlace = await scalar(db.url, `SELECT COUNT(*) FROM call_records WHERE project_id = $1 AND tool = $2 AND version > 100`, [projectId, rebegunTool]);
    const reinserted = await scalar(db.url, `SELECT COUNT(*) FROM call_records WHERE project_id = $1 AND tool = $2 AND version < 100`, [projectId, rebegunTool]);
    expect(claimedInPlace + reinserted).toBe(REBEGUN);
    expect(await scalar(db.url, `SELECT COUNT(*) FROM call_records WHERE project_id = $1 AND tool = $2 AND state = 'succeeded'`, [projectId, rebegunTool])).toBe(REBEGUN);

    // The instances' reports add up to exactly what was purgeable: nothing counted twice or missed.
    const expected = { records: EXPIRED_RECORDS + reinserted, events: OLD_EVENTS + ANCIENT_EVENTS, rollups: ancientRollupRows, storms: 0 };
    const summed = () => {
      const each = servers.map((server) => purgesIn(server.output()));
      const sum = (field: keyof Purges) => each.reduce((total, p) => total + p[field], 0);
      return { each, total: { records: sum("records"), events: sum("events"), rollups: sum("rollups"), storms: sum("storms") } };
    };
    // The last pass logs its report when it ends: give it a moment, then a few more passes.
    await waitFor(async () => summed().total.events >= expected.events && summed().total.rollups >= expected.rollups, 60_000, "the last reports");
    await sleep(600);
    const { each, total } = summed();
    expect(total).toEqual(expected);
    expect(each.filter((p) => p.records + p.events > 0).length, "more than one instance took part").toBeGreaterThan(1);

    // What had to stay, stayed; rollups outlive their events and count every live event exactly.
    const count = (where: string) => scalar(db.url, `SELECT COUNT(*) FROM call_records WHERE project_id = $1 AND ${where}`, [projectId]);
    expect(await count(`tool = 'leased'`)).toBe(LIVE_LEASE_RECORDS);
    expect(await count(`tool = 'fresh'`)).toBe(UNEXPIRED_RECORDS);
    expect(await count(`tool = '${liveTool}' AND state = 'succeeded'`)).toBe(fresh.length);
    const rollupTotal = (tool: string) =>
      scalar(db.url, `SELECT COALESCE(SUM(total), 0) FROM event_rollups WHERE project_id = $1 AND tool = $2`, [projectId, tool]);
    const ledgerTotal = (tool: string) =>
      scalar(db.url, `SELECT COUNT(*) FROM events WHERE project_id = $1 AND tool = $2 AND type IN ('begin', 'complete', 'lease_lost')`, [projectId, tool]);
    expect(await rollupTotal("old")).toBe(OLD_EVENTS);
    expect(await rollupTotal("ancient")).toBe(0);
    for (const tool of [liveTool, rebegunTool]) expect(await rollupTotal(tool)).toBe(await ledgerTotal(tool));

    console.log(
      `[scale-out collector] backlog seeded in ${seedMs} ms, drained ${drainMs} ms after; purged by instance: ${each.map((p) => `${p.records} records + ${p.events} events + ${p.rollups} rollups in ${p.passes} passes`).join(" | ")}; ` +
        `${fresh.length} fresh calls (${freshDuringPurge} during the purge), ${REBEGUN} re-begun (${claimedInPlace} claimed in place, ${reinserted} after their purge)`,
    );
  });
});
