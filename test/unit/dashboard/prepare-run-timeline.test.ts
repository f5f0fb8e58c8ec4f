import { describe, expect, it } from "vitest";
import type { CallSummary, LedgerEvent, RunDetail } from "@/lib/contract/calls";
import { ROOT_AGENT, foldDecisions, packRows, prepareRunTimeline, type RunSegment } from "@/lib/dashboard/prepare-run-timeline";
import { ledgerEvent } from "./ledger-event";

const T0 = Date.UTC(2026, 0, 1);
const at = (ms: number) => new Date(T0 + ms).toISOString();
let seq = 0;
const ev = (ms: number, callId: string | null, over: Partial<LedgerEvent> = {}): LedgerEvent =>
  ledgerEvent({ id: `evt_${String(++seq).padStart(4, "0")}`, callId, at: at(ms), tool: "search", key: `k_${callId}`, ...over });
const call = (callId: string, tool: string, agentId: string | null, ms: number, over: Partial<CallSummary> = {}): CallSummary => ({
  callId,
  tool,
  key: `k_${callId}`,
  runId: "run_1",
  stepId: tool,
  scope: null,
  agentId,
  status: "succeeded",
  attempts: 1,
  replays: 0,
  generation: 1,
  createdAt: at(ms),
  updatedAt: at(ms + 100),
  completedAt: at(ms + 100),
  lastDecision: null,
  ...over,
});

describe("prepareRunTimeline", () => {
  const run: RunDetail = {
    runId: "run_1",
    truncated: false,
    calls: [call("c1", "plan", null, 0), call("c2", "charge", "billing", 1_000, { attempts: 2 }), call("c3", "email", "notify", 3_000)],
    events: [
      ev(0, "c1", { tool: "plan" }),
      ev(500, "c1", { tool: "plan", type: "complete", decision: "succeeded" }),
      ev(1_000, "c2", { tool: "charge", agentId: "billing" }),
      ev(1_500, "c2", { tool: "charge", agentId: "billing", type: "complete", decision: "released" }),
      ev(2_000, "c2", { tool: "charge", agentId: "billing", attempt: 2 }),
      ev(2_500, "c2", { tool: "charge", agentId: "billing", attempt: 2, type: "complete", decision: "succeeded" }),
      // The parent asks about the subagent's charge again: it shows in the parent's lane.
      ev(3_000, "c2", { tool: "charge", decision: "replay", attempt: 2 }),
      ev(3_000, "c3", { tool: "email", agentId: "notify" }),
      ev(4_000, null, { tool: "email", agentId: "notify", decision: "blocked" }),
    ],
  };
  const timeline = prepareRunTimeline(run);

  it("makes one lane per (sub)agent, in order of first activity", () => {
    expect(timeline.lanes.map((l) => l.agent)).toEqual([ROOT_AGENT, "billing", "notify"]);
    expect(timeline.start).toBe(T0);
    expect(timeline.end).toBe(T0 + 4_000);
  });

  it("draws each call as a segment over its events in that lane, marks coloured by decision", () => {
    const billing = timeline.lanes[1]!.segments;
    expect(billing).toHaveLength(1);
    expect(billing[0]).toMatchObject({ callId: "c2", tool: "charge", startPct: 25, widthPct: 37.5, status: "succeeded" });
    expect(billing[0]!.marks.map((m) => [m.pct, m.tone])).toEqual([
      [25, "exec"],
      [37.5, "warn"],
      [50, "exec"],
      [62.5, "ok"],
    ]);
    const root = timeline.lanes[0]!.segments.map((s) => [s.callId, s.marks.map((m) => m.tone)]);
    expect(root).toEqual([
      ["c1", ["exec", "ok"]],
      ["c2", ["dedup"]],
    ]);
    const blocked = timeline.lanes[2]!.segments.find((s) => s.callId === null)!;
    expect(blocked.marks[0]).toMatchObject({ pct: 100, tone: "danger" });
    expect(blocked.marks[0]!.label).toContain("begin → blocked");
  });

  it("lists steps and attempts per lane with their begin decisions folded", () => {
    expect(timeline.steps.map((s) => [s.agent, s.callId, s.attempts, s.decisions.map((d) => `${d.decision}×${d.count}`).join(" ")])).toEqual([
      [ROOT_AGENT, "c1", 1, "execute×1"],
      [ROOT_AGENT, "c2", 2, "replay×1"],
      ["billing", "c2", 2, "execute×2"],
      ["notify", "c3", 1, "execute×1"],
      ["notify", null, 1, "blocked×1"],
    ]);
  });

  it("still shows calls whose events are not listed, from the record's times", () => {
    const partial = prepareRunTimeline({ ...run, truncated: true, events: run.events.slice(0, 2) });
    const c3 = partial.lanes.find((l) => l.agent === "notify")!.segments[0]!;
    expect(c3).toMatchObject({ callId: "c3", marks: [] });
    expect(c3.widthPct).toBeGreaterThan(0);
  });

  it("has time ticks from the start to the end of the run", () => {
    expect(timeline.ticks.map((t) => t.label)).toEqual(["start", "+1.0 s", "+2.0 s", "+3.0 s", "+4.0 s"]);
  });
});

describe("packRows", () => {
  const seg = (startPct: number, widthPct: number) => ({ startPct, widthPct, row: -1 }) as RunSegment;

  it("puts overlapping segments on separate rows and reuses a row once it is free", () => {
    const segments = [seg(0, 30), seg(10, 10), seg(35, 10), seg(21, 5)];
    expect(packRows(segments)).toBe(2);
    expect(segments.map((s) => s.row)).toEqual([0, 1, 0, 1]);
  });

  it("treats a zero-length segment as its drawn minimum width", () => {
    const segments = [seg(50, 0), seg(51, 0)];
    expect(packRows(segments)).toBe(2);
  });
});

describe("foldDecisions", () => {
  it("folds runs of the same decision", () => {
    expect(foldDecisions(["execute", "replay", "replay", "execute"]).map((d) => [d.decision, d.count, d.tone])).toEqual([
      ["execute", 1, "exec"],
      ["replay", 2, "dedup"],
      ["execute", 1, "exec"],
    ]);
  });
});
