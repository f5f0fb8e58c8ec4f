import type { Cursor } from "../../core/cursor";
import type { CallRecord, RecordState } from "../../core/record";
import type { RunState } from "../../contract/calls";

/** The calls list's filters, already validated; absent means "any". Times are epoch ms. */
export interface CallListFilter {
  tool?: string;
  status?: RecordState;
  /** Begin decisions, `lease_lost` or `evicted`: any of them found in the call's ledger. */
  decisions?: readonly string[];
  /** Only a matching ledger entry (or, without `decisions`, any begin) at or after / before these times. */
  decidedFrom?: number;
  decidedTo?: number;
  /** Only calls that ran in shadow mode though the gate would have prevented them (core/shadow.ts). */
  shadowPrevented?: boolean;
  runId?: string;
  agentId?: string;
  keyPrefix?: string;
  /** Text found in the stored (already redacted) args or result JSON, case-insensitively. */
  search?: string;
  from?: number;
  to?: number;
}

/** The runs list's search, validated; absent means "any". */
export interface RunListFilter {
  /** A run id, or the start of one. */
  runIdPrefix?: string;
  /** A (sub)agent that asked the gate anything in the run. */
  agentId?: string;
  /** A tool the run called. */
  tool?: string;
  /** in_progress / failed: a call in that state; blocked: a blocked begin; succeeded: every call succeeded. */
  state?: RunState;
}

export interface CallListPage {
  limit: number;
  /** Only rows strictly after this position (newest first). */
  after?: Cursor;
}

/** A column the calls list sorts by (the contract's `sort`), as the store orders it. */
export type CallListSortColumn = "firstSeen" | "tool" | "status" | "run" | "agent" | "attempts" | "key";
/** A column the runs list sorts by: its first call's run id or time, or one of its counts. */
export type RunListSortColumn = "started" | "run" | "lastActivity" | "calls" | "agents" | "failed" | "dedupHits";

/** A page of a list in a chosen order; ties go by id (a run's: its first call's) in the same direction. */
export interface SortedPage<C extends string> {
  limit: number;
  sort: { column: C; dir: "asc" | "desc" };
  /** Only rows strictly after this row's position: its value in the sort column (null: blank) and id. */
  after?: { value: string | number | null; id: string };
}
export type SortedCallPage = SortedPage<CallListSortColumn>;
export type SortedRunPage = SortedPage<RunListSortColumn>;

/** A record as a list shows it (no args, result or lease token) with its latest begin decision. */
export interface CallListRow
  extends Pick<
    CallRecord,
    "id" | "projectId" | "key" | "tool" | "runId" | "stepId" | "scope" | "agentId" | "state" | "attempt" | "replays" | "firstSeenAt" | "updatedAt" | "completedAt"
  > {
  lastDecision: string | null;
  lastDecisionAt: number | null;
}

/** A run with its counts; `firstCallId` with `startedAt` is its cursor position. */
export interface RunRow {
  runId: string;
  firstCallId: string;
  startedAt: number;
  lastActivityAt: number;
  calls: number;
  tools: number;
  agents: number;
  succeeded: number;
  failed: number;
  inProgress: number;
  begins: number;
  dedupHits: number;
  blocked: number;
  /** The value the page was sorted on, as the store compared it: the next page's cursor. */
  sortValue: string | number;
}
