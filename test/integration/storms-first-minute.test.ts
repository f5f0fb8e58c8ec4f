import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_POLICY, type StormPolicy } from "../../lib/core/policy";
import { closeGraceMs } from "../../lib/core/storm-windows";
import type { PolicySource } from "../../lib/server/policies/policy-source";
import { StormMonitor } from "../../lib/server/insights/storm-monitor";
import { openStore } from "../../lib/store/hot/open-gate-store";
import type { GateStore } from "../../lib/store/ports/gate-store";
import type { InsightStore } from "../../lib/store/ports/insight-store";
import { openInsightStore } from "../../lib/store/sql/open-insight-store";
import { type Db, openDb } from "../../lib/store/prisma/client";
import { PolicyRepository } from "../../lib/store/prisma/policy-repository";
import { beginEvent } from "../helpers/begin-event";
import { PROVIDERS, type TestDatabase, createTestDatabase } from "../helpers/databases";

/**
 * Storms from the first minute (issue #17), against a real database with a hand-driven clock and
 * whole-minute windows: a tool new to a warm gate has a baseline (its zero windows), a burst cut
 * in two by a minute boundary is seen whole, startup traffic is no storm, and a burst in a project's
 * first minute is (the absolute rule applies from its first call, issue #38).
 */
const MINUTE = 60_000;
const BASE = Date.UTC(2026, 2, 1);
const storm: StormPolicy = { ...DEFAULT_POLICY.storm, windowSeconds: 60 };

function event(projectId: string, tool: string, at: number, decision: string, run = "run_1") {
  return beginEvent({ projectId, tool, at, decision, key: `key_${tool}_${run}`, runId: run });
}

describe.each(PROVIDERS)("%s: storms from the first minute", (provider) => {
  let db: TestDatabase;
  let gate: GateStore;
  let insights: InsightStore;
  let prisma: Db;
  let now = 0;
  let monitor: StormMonitor;

  beforeAll(async () => {
    db = await createTestDatabase(provider);
    gate = openStore({ databaseUrl: db.url });
    insights = openInsightStore({ databaseUrl: db.url });
    prisma = openDb({ databaseUrl: db.url });
    const policies: PolicySource = { forTool: async () => ({ policy: { ...DEFAULT_POLICY, storm }, version: 1 }) };
    monitor = new StormMonitor({ store: insights, policies, tools: new PolicyRepository(prisma), clock: () => now });
  });

  afterAll(async () => {
    await insights?.close();
    await prisma?.$disconnect();
    await gate?.close();
    await db?.drop();
  });

  async function project(name: string, firstSeenAt: number, tools: string[]): Promise<string> {
    const projectId = `proj_${name}_${provider}`;
    await gate.createProject({ id: projectId, name, createdAt: firstSeenAt });
    for (const tool of tools) await gate.discoverTool(projectId, tool, firstSeenAt);
    return projectId;
  }

  /** `hits` dedup hits and `others` executes of a tool, spread evenly over [from, to). */
  async function traffic(projectId: string, tool: string, from: number, to: number, hits: number, others = 0): Promise<void> {
    const total = hits + others;
    for (let i = 0; i < total; i++) {
      const at = from + Math.floor(((to - from) * i) / total);
      // Exactly `hits` replays, spread evenly among the executes.
      const replay = Math.floor(((i + 1) * hits) / total) > Math.floor((i * hits) / total);
      await gate.appendEvent(event(projectId, tool, at, replay ? "replay" : "execute", `run_${i % 7}`));
    }
  }

  /** A pass of the detector once the window starting at `windowStart` has closed. */
  async function passAfter(projectId: string, windowStart: number) {
    now = windowStart + MINUTE + closeGraceMs(MINUTE);
    return monitor.evaluateProject(projectId);
  }

  it("a burst on a tool first seen a minute ago, in a gate up for an hour, opens a storm", async () => {
    const projectId = await project("warm", BASE, ["search_kb"]);
    for (let m = 0; m < 60; m++) await gate.appendEvent(event(projectId, "search_kb", BASE + m * MINUTE + 1_000, "execute"));
    const burstMinute = BASE + 61 * MINUTE;
    await gate.discoverTool(projectId, "sync_inventory", burstMinute - 30_000);
    await traffic(projectId, "sync_inventory", burstMinute, burstMinute + 50_000, 168, 13);

    const notices = await passAfter(projectId, burstMinute);
    expect(notices.map((n) => [n.type, n.storm.tool])).toEqual([["storm.opened", "sync_inventory"]]);
    expect(notices[0]!.storm).toMatchObject({ rule: "baseline", baseline: 0, threshold: 20, peakHits: 168, openingHits: 168, startedAt: burstMinute, openingWindowAt: burstMinute });
  });

  it("a burst straddling a minute boundary opens one", async () => {
    const projectId = await project("straddle", BASE, ["fetch_page"]);
    const k = 20;
    // A normal of 10 hits a minute, then 35 + 35 hits in the 20 s either side of minute k+1's start:
    // each minute sees 45, under max(20, 5 × 10) = 50; the minute across the boundary sees 80.
    for (let m = 0; m < k + 3; m++) await traffic(projectId, "fetch_page", BASE + m * MINUTE, BASE + (m + 1) * MINUTE, 10);
    const boundary = BASE + (k + 1) * MINUTE;
    await traffic(projectId, "fetch_page", boundary - 20_000, boundary, 35);
    await traffic(projectId, "fetch_page", boundary, boundary + 20_000, 35);

    expect(await passAfter(projectId, BASE + (k - 1) * MINUTE)).toEqual([]);
    expect(await passAfter(projectId, BASE + k * MINUTE)).toEqual([]);
    const notices = await passAfter(projectId, boundary);
    expect(notices.map((n) => n.type)).toEqual(["storm.opened"]);
    // The storm's windows stay the detector's: it spans both minutes, opened by the one across them.
    const opened = { rule: "baseline", baseline: 10, threshold: 50, openingHits: 80, openingWindowAt: boundary - MINUTE / 2 };
    expect(notices[0]!.storm).toMatchObject({ ...opened, startedAt: boundary - MINUTE, lastWindowAt: boundary, peakHits: 45, totalHits: 90 });
    const [stored] = await insights.openStorms(projectId);
    expect(stored).toMatchObject({ ...opened, id: notices[0]!.storm.id, startedAt: boundary - MINUTE });
  });

  it("a burst in a project's first minute, nearly all duplicates, opens a storm by the absolute rule", async () => {
    const startedAt = BASE + 100 * MINUTE + 5_000;
    const projectId = await project("first", startedAt, ["send_email"]);
    await traffic(projectId, "send_email", startedAt, BASE + 101 * MINUTE, 168, 13);
    const notices = await passAfter(projectId, BASE + 100 * MINUTE);
    expect(notices.map((n) => n.type)).toEqual(["storm.opened"]);
    expect(notices[0]!.storm).toMatchObject({ rule: "absolute", peakHits: 168 });
  });

  it("a cold-started gate does not call its startup traffic a storm; without a baseline only the absolute rule opens one", async () => {
    const startedAt = BASE + 10_000;
    const projectId = await project("cold", startedAt, ["charge_card"]);
    // Startup: agents reconnect and queued retries land, 40 % of begins duplicates, far above minHits.
    await traffic(projectId, "charge_card", startedAt, BASE + MINUTE, 60, 90);
    await traffic(projectId, "charge_card", BASE + MINUTE, BASE + 2 * MINUTE, 120, 180);
    expect(await passAfter(projectId, BASE)).toEqual([]);
    expect(await passAfter(projectId, BASE + MINUTE)).toEqual([]);
    await traffic(projectId, "charge_card", BASE + 2 * MINUTE, BASE + 3 * MINUTE, 90, 110);
    expect(await passAfter(projectId, BASE + 2 * MINUTE)).toEqual([]);
    expect(await insights.listStorms(projectId, null, 10)).toEqual([]);

    // Still no baseline (two windows of history): 168 hits at 93 % of begins is a storm by the absolute rule.
    await traffic(projectId, "charge_card", BASE + 3 * MINUTE, BASE + 4 * MINUTE, 168, 13);
    const notices = await passAfter(projectId, BASE + 3 * MINUTE);
    expect(notices.map((n) => n.type)).toEqual(["storm.opened"]);
    expect(notices[0]!.storm).toMatchObject({ rule: "absolute", threshold: storm.absoluteMinHits, peakHits: 168, openingHits: 168, startedAt: BASE + 3 * MINUTE });
  });
});
