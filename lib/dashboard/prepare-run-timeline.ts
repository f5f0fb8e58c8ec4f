import type { CallSummary, LedgerEvent, RunDetail } from "../contract/calls";
import { type Tone, actorOf, describeEvent, formatOffset, toneOfDecision, toneOfEvent } from "./ledger-labels";

/**
 * A run's timeline, one lane per (sub)agent: each call an agent asked about is a segment from its
 * first to its last event in that lane (a subagent replaying the parent's call shows in the
 * subagent's lane), with a coloured mark per event. Segments that overlap in time go to separate
 * rows of their lane. Positions are percentages of the run's span, so the view scales to any width.
 */
export interface RunMark {
  id: string;
  pct: number;
  tone: Tone;
  label: string;
}

export interface RunSegment {
  id: string;
  callId: string | null;
  tool: string;
  stepId: string | null;
  startPct: number;
  widthPct: number;
  row: number;
  status: CallSummary["status"] | null;
  marks: RunMark[];
  summary: string;
}

export interface RunLane {
  agent: string;
  agentId: string | null;
  rows: number;
  segments: RunSegment[];
}

export interface StepRow {
  agent: string;
  callId: string | null;
  tool: string;
  stepId: string | null;
  status: CallSummary["status"] | null;
  attempts: number;
  /** The lane's begin decisions in order, runs of the same one folded: execute, replay ×3. */
  decisions: { decision: string; tone: Tone; count: number }[];
}

export interface RunTimeline {
  start: number;
  end: number;
  lanes: RunLane[];
  ticks: { pct: number; label: string }[];
  steps: StepRow[];
}

export const ROOT_AGENT = "root agent";
/** Narrowest a segment is drawn (CSS min-width), in % of the track: packing treats it as this wide. */
const MIN_SEGMENT_PCT = 2;
const TICKS = 5;

const agentLabel = (agentId: string | null) => agentId ?? ROOT_AGENT;

interface Group {
  agentId: string | null;
  callId: string | null;
  events: LedgerEvent[];
  first: number;
}

export function prepareRunTimeline(run: RunDetail): RunTimeline {
  const callsById = new Map(run.calls.map((call) => [call.callId, call]));
  const groups = new Map<string, Group>();
  for (const event of run.events) {
    // A blocked begin never reached a record: it stands alone.
    const id = `${agentLabel(event.agentId)}\u0000${event.callId ?? `blocked:${event.id}`}`;
    const at = Date.parse(event.at);
    const group = groups.get(id) ?? { agentId: event.agentId, callId: event.callId, events: [], first: at };
    group.events.push(event);
    group.first = Math.min(group.first, at);
    groups.set(id, group);
  }
  // Calls whose events are not listed (a truncated answer) still show, from the record's times.
  const seen = new Set([...groups.values()].map((g) => g.callId));
  const recordOnly = run.calls.filter((call) => !seen.has(call.callId));

  const times = [
    ...run.events.map((e) => Date.parse(e.at)),
    ...recordOnly.flatMap((c) => [Date.parse(c.createdAt), Date.parse(c.completedAt ?? c.updatedAt)]),
  ];
  const start = times.length ? Math.min(...times) : 0;
  const end = times.length ? Math.max(...times) : 0;
  const span = Math.max(end - start, 1);
  const pct = (ms: number) => ((ms - start) / span) * 100;

  const lanes = new Map<string, RunLane & { first: number }>();
  const steps: StepRow[] = [];
  const laneOf = (agentId: string | null, first: number) => {
    const name = agentLabel(agentId);
    const lane = lanes.get(name) ?? { agent: name, agentId, rows: 0, segments: [], first };
    lane.first = Math.min(lane.first, first);
    lanes.set(name, lane);
    return lane;
  };

  for (const group of [...groups.values()].sort((a, b) => a.first - b.first)) {
    const call = group.callId ? callsById.get(group.callId) : undefined;
    const sorted = group.events.sort((a, b) => (a.id < b.id ? -1 : 1));
    const from = Date.parse(sorted[0]!.at);
    const to = Date.parse(sorted[sorted.length - 1]!.at);
    const tool = call?.tool ?? sorted[0]!.tool;
    const stepId = call?.stepId ?? namedStep(sorted[0]!.detail);
    const marks = sorted.map((event) => ({
      id: event.id,
      pct: pct(Date.parse(event.at)),
      tone: toneOfEvent(event),
      label: `${describeEvent(event)} · attempt ${event.attempt} · ${actorOf(event)} · ${formatOffset(Date.parse(event.at) - start)}`,
    }));
    const attempts = Math.max(0, ...sorted.map((e) => e.attempt));
    laneOf(group.agentId, group.first).segments.push({
      id: `${agentLabel(group.agentId)}:${group.callId ?? sorted[0]!.id}`,
      callId: group.callId,
      tool,
      stepId,
      startPct: pct(from),
      widthPct: pct(to) - pct(from),
      row: 0,
      status: call?.status ?? null,
      marks,
      summary: `${tool}${stepId ? ` (step ${stepId})` : ""}: ${sorted.length} event${sorted.length === 1 ? "" : "s"}, ${call ? call.status : "no record"}`,
    });
    steps.push({
      agent: agentLabel(group.agentId),
      callId: group.callId,
      tool,
      stepId,
      status: call?.status ?? null,
      attempts: call?.attempts ?? attempts,
      decisions: foldDecisions(sorted.filter((e) => e.type === "begin").map((e) => e.decision)),
    });
  }
  for (const call of recordOnly) {
    const from = Date.parse(call.createdAt);
    laneOf(call.agentId, from).segments.push({
      id: `${agentLabel(call.agentId)}:${call.callId}`,
      callId: call.callId,
      tool: call.tool,
      stepId: call.stepId,
      startPct: pct(from),
      widthPct: pct(Date.parse(call.completedAt ?? call.updatedAt)) - pct(from),
      row: 0,
      status: call.status,
      marks: [],
      summary: `${call.tool}${call.stepId ? ` (step ${call.stepId})` : ""}: ${call.status}`,
    });
    steps.push({
      agent: agentLabel(call.agentId),
      callId: call.callId,
      tool: call.tool,
      stepId: call.stepId,
      status: call.status,
      attempts: call.attempts,
      decisions: call.lastDecision ? foldDecisions([call.lastDecision.decision]) : [],
    });
  }

  const ordered = [...lanes.values()].sort((a, b) => a.first - b.first || a.agent.localeCompare(b.agent));
  for (const lane of ordered) lane.rows = packRows(lane.segments);
  const laneRank = new Map(ordered.map((lane, index) => [lane.agent, index]));
  return {
    start,
    end,
    lanes: ordered.map(({ first: _first, ...lane }) => lane),
    ticks: Array.from({ length: TICKS }, (_, i) => {
      const at = (i / (TICKS - 1)) * 100;
      return { pct: at, label: i === 0 ? "start" : formatOffset((at / 100) * (end - start)) };
    }),
    // Lane order, then time order within a lane (the sort is stable).
    steps: steps.sort((a, b) => laneRank.get(a.agent)! - laneRank.get(b.agent)!),
  };
}

/** Greedy interval packing: each segment on the first row where it does not overlap; returns the row count. */
export function packRows(segments: RunSegment[]): number {
  const rowEnds: number[] = [];
  for (const segment of [...segments].sort((a, b) => a.startPct - b.startPct)) {
    const end = segment.startPct + Math.max(segment.widthPct, MIN_SEGMENT_PCT);
    const row = rowEnds.findIndex((rowEnd) => rowEnd <= segment.startPct);
    segment.row = row === -1 ? rowEnds.length : row;
    rowEnds[segment.row] = end;
  }
  return Math.max(rowEnds.length, 1);
}

export function foldDecisions(decisions: string[]): StepRow["decisions"] {
  const folded: StepRow["decisions"] = [];
  for (const decision of decisions) {
    const last = folded[folded.length - 1];
    if (last && last.decision === decision) last.count++;
    else folded.push({ decision, tone: toneOfDecision(decision), count: 1 });
  }
  return folded;
}

/** The step a begin blocked before it had a record named (its event's detail keeps it). */
function namedStep(detail: unknown): string | null {
  const stepId = detail !== null && typeof detail === "object" ? (detail as { stepId?: unknown }).stepId : undefined;
  return typeof stepId === "string" ? stepId : null;
}
