import { type CallListQuery, type CallSortColumn, DEFAULT_CALL_SORT, DEFAULT_RUN_SORT, type DecisionListQuery, type RunListQuery, type RunSortColumn } from "../../contract/calls";
import { decodeCursor, decodeSortCursor, encodeCursor, encodeSortCursor } from "../../core/cursor";
import { parseJsonText } from "../../core/record";
import { redact } from "../../core/redact";
import { computeToolFigures } from "../../core/tool-figures";
import type { CallListRow, RunRow, SortedCallPage } from "../../store/ports/call-list";
import type { OperatorStore } from "../../store/ports/operator-store";
import type { GateEvent, GateStore } from "../../store/ports/gate-store";
import { AppError } from "../app-error";
import type { OperatorRecords } from "../operators/operator-records";
import type { PolicySource } from "../policies/policy-source";

/** How much of a call's or run's history one answer carries. */
export const CALL_EVENTS_LIMIT = 500;
export const RUN_CALLS_LIMIT = 1_000;
export const RUN_EVENTS_LIMIT = 5_000;
export const DECISIONS_LIMIT = 500;
export const TOOL_LEDGER_LIMIT = 100_000;

export interface Paged<T> {
  items: T[];
  nextCursor: string | null;
}

export interface CallLedgerView {
  callId: string;
  args: unknown;
  result: unknown;
  redactFields: string[];
  events: GateEvent[];
  truncated: boolean;
}

export interface RunView {
  runId: string;
  calls: CallListRow[];
  events: GateEvent[];
  truncated: boolean;
}

/**
 * The calls and runs explorer: filtered, cursor-paged lists of a project's calls and runs, a
 * call's ledger with its arguments and result masked under the tool's *current* policy (fields
 * added to redactFields after a call was stored are hidden too), and a run's calls and events
 * across its subagents. Reads only; every read is scoped by the project.
 */
export class CallExplorer {
  constructor(
    private readonly store: OperatorStore,
    private readonly records: OperatorRecords,
    private readonly policies: PolicySource,
    /** The gate's write-behind ledger: this process's queued decisions are committed before a read. */
    private readonly ledger: Pick<GateStore, "settleLedger">,
  ) {}

  /** Every begin a figure counted, with or without a record (issue #38 §1: loop blocks were unreachable). */
  async listDecisions(projectId: string, query: DecisionListQuery) {
    await this.ledger.settleLedger();
    return this.store.listDecisions(projectId, { decisions: query.decision, from: Date.parse(query.decidedFrom), to: Date.parse(query.decidedTo), tool: query.tool }, DECISIONS_LIMIT);
  }

  /** One tool's figures over a range (the per-tool page): decisions, dedup rate, execution latency, failure rate. */
  async toolFigures(projectId: string, tool: string, from: number, to: number, bucketMs: number) {
    await this.ledger.settleLedger();
    const lines = await this.store.toolLedger(projectId, tool, from, to, TOOL_LEDGER_LIMIT);
    return { ...computeToolFigures(lines, bucketMs), truncated: lines.length >= TOOL_LEDGER_LIMIT };
  }

  /** The project's calls in the query's sort, a page at a time; the cursor is the last row's place in that sort. */
  async listCalls(projectId: string, query: CallListQuery): Promise<Paged<CallListRow>> {
    const [column, dir] = query.sort.split(":") as [CallSortColumn, "asc" | "desc"];
    await this.ledger.settleLedger();
    const rows = await this.store.listCalls(
      projectId,
      {
        tool: query.tool,
        status: query.status,
        decisions: query.decision,
        decidedFrom: query.decidedFrom === undefined ? undefined : Date.parse(query.decidedFrom),
        decidedTo: query.decidedTo === undefined ? undefined : Date.parse(query.decidedTo),
        shadowPrevented: query.shadow === "prevented",
        runId: query.runId,
        agentId: query.agentId,
        keyPrefix: query.key,
        search: query.q,
        from: query.from === undefined ? undefined : Date.parse(query.from),
        to: query.to === undefined ? undefined : Date.parse(query.to),
      },
      { limit: query.limit + 1, sort: { column, dir }, after: sortedPosition(query.cursor) },
    );
    // The newest-first list keeps its (time, id) cursors: links and exports made before sorting existed still resume.
    return page(rows, query.limit, (last) =>
      query.sort === DEFAULT_CALL_SORT ? encodeCursor({ at: last.firstSeenAt, id: last.id }) : encodeSortCursor({ sort: query.sort, value: SORT_VALUE[column](last), id: last.id }),
    );
  }

  /** Runs in the query's sort, a page at a time; the cursor is the last run's place in that sort. */
  async listRuns(projectId: string, query: RunListQuery): Promise<Paged<RunRow>> {
    const filter = { runIdPrefix: query.runId, agentId: query.agentId, tool: query.tool, state: query.state };
    const [column, dir] = query.sort.split(":") as [RunSortColumn, "asc" | "desc"];
    await this.ledger.settleLedger();
    const rows = await this.store.listRuns(projectId, { limit: query.limit + 1, sort: { column, dir }, after: sortedPosition(query.cursor) }, filter);
    return page(rows, query.limit, (last) =>
      query.sort === DEFAULT_RUN_SORT ? encodeCursor({ at: last.startedAt, id: last.firstCallId }) : encodeSortCursor({ sort: query.sort, value: last.sortValue, id: last.firstCallId }),
    );
  }

  async callLedger(projectId: string, callId: string): Promise<CallLedgerView> {
    await this.ledger.settleLedger();
    const record = await this.records.get(projectId, callId);
    const [{ policy }, events] = await Promise.all([
      this.policies.forTool(projectId, record.tool),
      this.store.listCallEvents(projectId, callId, CALL_EVENTS_LIMIT + 1),
    ]);
    const mask = (text: string | null) => (text === null ? null : redact(parseJsonText(text), policy.redactFields));
    return {
      callId: record.id,
      args: mask(record.args),
      result: record.state === "succeeded" ? mask(record.result) : null,
      redactFields: policy.redactFields,
      events: (events.length > CALL_EVENTS_LIMIT ? events.slice(1) : events).map((event) => maskDetailArgs(event, policy.redactFields)),
      truncated: events.length > CALL_EVENTS_LIMIT,
    };
  }

  async run(projectId: string, runId: string): Promise<RunView> {
    await this.ledger.settleLedger();
    const [calls, events] = await Promise.all([
      this.store.listRunCalls(projectId, runId, RUN_CALLS_LIMIT + 1),
      this.store.listRunEvents(projectId, runId, RUN_EVENTS_LIMIT + 1),
    ]);
    if (calls.length === 0 && events.length === 0) throw new AppError("not_found", `no run ${runId} in this project`);
    return {
      runId,
      calls: calls.slice(0, RUN_CALLS_LIMIT),
      events: events.slice(0, RUN_EVENTS_LIMIT),
      truncated: calls.length > RUN_CALLS_LIMIT || events.length > RUN_EVENTS_LIMIT,
    };
  }
}

/** The contract checked that the cursor fits the query's sort; either form becomes a (value, id) position. */
function sortedPosition(text: string | undefined): SortedCallPage["after"] {
  if (text === undefined) return undefined;
  const time = decodeCursor(text);
  if (time) return { value: time.at, id: time.id };
  const sorted = decodeSortCursor(text);
  return sorted ? { value: sorted.value, id: sorted.id } : undefined;
}

/** A row's value in each sort column, as the store compares it. */
const SORT_VALUE: Record<CallSortColumn, (row: CallListRow) => string | number | null> = {
  firstSeen: (row) => row.firstSeenAt,
  tool: (row) => row.tool,
  status: (row) => row.state,
  run: (row) => row.runId,
  agent: (row) => row.agentId,
  attempts: (row) => row.attempt,
  key: (row) => row.key,
};

/** One row more than the page was read: its presence says whether a next page exists. */
function page<T>(rows: T[], limit: number, cursorAt: (last: T) => string): Paged<T> {
  const items = rows.slice(0, limit);
  return { items, nextCursor: rows.length > limit ? cursorAt(items[items.length - 1]!) : null };
}

/** A mismatched begin keeps the args it sent in its detail: masked again under the current policy, like the record's. */
function maskDetailArgs(event: GateEvent, redactFields: readonly string[]): GateEvent {
  if (!event.argsMismatch || event.detail === null) return event;
  const detail = parseJsonText(event.detail) as Record<string, unknown> | null;
  if (!detail || typeof detail !== "object" || !("args" in detail)) return event;
  return { ...event, detail: JSON.stringify({ ...detail, args: redact(detail.args, redactFields) }) };
}
