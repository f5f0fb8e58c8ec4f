import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_POLICY } from "../../lib/core/policy";
import { closeGraceMs } from "../../lib/core/storm-windows";
import { type StormNotice, StormMonitor } from "../../lib/server/insights/storm-monitor";
import type { PolicySource } from "../../lib/server/policies/policy-source";
import type { InsightStore } from "../../lib/store/ports/insight-store";
import { openInsightStore } from "../../lib/store/sql/open-insight-store";
import { openStore } from "../../lib/store/hot/open-gate-store";
import { type Db, openDb } from "../../lib/store/prisma/client";
import { PolicyRepository } from "../../lib/store/prisma/policy-repository";
import type { GateStore } from "../../lib/store/ports/gate-store";
import { beginEvent } from "../helpers/begin-event";
import { PROVIDERS, type TestDatabase, createTestDatabase } from "../helpers/databases";

/**
 * The storm detector against a real database with a hand-driven clock: windows of whole minutes
 * read the rollups, shorter ones the events, and two detectors (two stores, as two instances
 * would have) judging the same windows at the same moments write and report each transition once.
 */
const BASE = Date.UTC(2026, 0, 1);
const TOOL = "charge_card";
const stormPolicy = { windowSeconds: 0, minHits: 20, factor: 5 };

/** Dedup hits per window: a quiet baseline, a two-window burst, then quiet until it closes. */
const SERIES = [2, 2, 2, 2, 2, 50, 60, 1, 1, 1, 0, 0];
const OPEN_AT = 5;
const CLOSE_AT = 9;

function event(projectId: string, at: number, decision: string, key: string, runId: string) {
  return beginEvent({ projectId, tool: TOOL, at, decision, key, runId, policyVersion: 7 });
}

describe.each(PROVIDERS)("%s: the storm detector over the ledger", (provider) => {
  for (const windowSeconds of [60, 10]) {
    describe(`${windowSeconds} s windows (${windowSeconds % 60 === 0 ? "rollups" : "events"})`, () => {
      const windowMs = windowSeconds * 1000;
      const projectId = `proj_storm_${provider}_${windowSeconds}`;
      let db: TestDatabase;
      let gate: GateStore;
      let prisma: Db;
      const stores: InsightStore[] = [];
      const notices: StormNotice[] = [];
      let now = 0;
      let monitors: StormMonitor[];

      beforeAll(async () => {
        db = await createTestDatabase(provider);
        gate = openStore({ databaseUrl: db.url });
        prisma = openDb({ databaseUrl: db.url });
        const tools = new PolicyRepository(prisma);
        await gate.createProject({ id: projectId, name: "storms", createdAt: BASE });
        await gate.discoverTool(projectId, TOOL, BASE);
        const policies: PolicySource = { forTool: async () => ({ policy: { ...DEFAULT_POLICY, storm: { ...DEFAULT_POLICY.storm, ...stormPolicy, windowSeconds } }, version: 7 }) };
        monitors = [0, 1].map(() => {
          const store = openInsightStore({ databaseUrl: db.url });
          stores.push(store);
          return new StormMonitor({ store, policies, tools, clock: () => now, onTransition: (notice) => notices.push(notice) });
        });
        for (const [window, hits] of SERIES.entries()) {
          const start = BASE + window * windowMs;
          for (let i = 0; i < hits; i++) {
            // Three runs; key_a drives two thirds of the hits. Refused and in_progress count too.
            const decision = i % 10 === 9 ? "in_progress" : i % 10 === 8 ? "refused" : "replay";
            await gate.appendEvent(event(projectId, start + ((i * 97) % windowMs), decision, i % 3 === 2 ? "key_b" : "key_a", `run_${i % 3}`));
          }
          // Decisions that are not dedup hits never count.
          await gate.appendEvent(event(projectId, start + 5, "execute", "key_c", "run_x"));
        }
      });

      afterAll(async () => {
        for (const store of stores) await store.close();
        await gate?.close();
        await prisma?.$disconnect();
        await db?.drop();
      });

      /** Both detectors pass at the moment window `index` has closed. */
      async function passAfter(index: number) {
        now = BASE + (index + 1) * windowMs + closeGraceMs(windowMs);
        await Promise.all(monitors.map((monitor) => monitor.tick()));
      }

      it("stays quiet over the baseline", async () => {
        await passAfter(OPEN_AT - 1);
        expect(notices).toEqual([]);
        expect(await stores[0]!.listStorms(projectId, null, 10)).toEqual([]);
      });

      it("opens exactly one incident for the burst, reported once", async () => {
        await passAfter(OPEN_AT);
        expect(notices.map((n) => n.type)).toEqual(["storm.opened"]);
        const storms = await stores[1]!.listStorms(projectId, null, 10);
        expect(storms).toHaveLength(1);
        expect(storms[0]).toMatchObject({
          tool: TOOL,
          status: "open",
          windowSeconds,
          baseline: 2,
          threshold: 20,
          startedAt: BASE + OPEN_AT * windowMs,
          peakHits: 50,
          totalHits: 50,
          runsInvolved: 3,
          policyVersion: 7,
        });
        expect(storms[0]!.topKeys).toEqual([
          { name: "key_a", hits: 34 },
          { name: "key_b", hits: 16 },
        ]);
        // The same window again, by both: nothing changes.
        await passAfter(OPEN_AT);
        expect(notices).toHaveLength(1);
      });

      it("follows the storm while it lasts and closes it after three quiet windows", async () => {
        await passAfter(OPEN_AT + 1);
        const [open] = await stores[0]!.listStorms(projectId, "open", 10);
        expect(open).toMatchObject({ peakHits: 60, lastHits: 60, totalHits: 110, quietWindows: 0 });
        expect(open!.topKeys[0]).toEqual({ name: "key_a", hits: 74 });

        await passAfter(CLOSE_AT);
        expect(notices.map((n) => n.type)).toEqual(["storm.opened", "storm.closed"]);
        const storms = await stores[0]!.listStorms(projectId, null, 10);
        expect(storms).toHaveLength(1);
        expect(storms[0]).toMatchObject({
          status: "closed",
          peakHits: 60,
          totalHits: 113,
          quietWindows: 3,
          endedAt: BASE + (CLOSE_AT + 1) * windowMs,
          lastWindowAt: BASE + CLOSE_AT * windowMs,
        });
        expect(await stores[0]!.openStorms(projectId)).toEqual([]);
      });

      it("does not reopen the windows it already judged", async () => {
        await passAfter(CLOSE_AT);
        await passAfter(SERIES.length - 1);
        expect(notices).toHaveLength(2);
        expect(await stores[0]!.listStorms(projectId, null, 10)).toHaveLength(1);
      });
    });
  }
});
