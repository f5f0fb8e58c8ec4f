import { z } from "zod";
import { decodeCursor, decodeSortCursor } from "../core/cursor";
import { RUN_STATES as SAGA_RUN_STATES } from "./sagas";
import { BEGIN_DECISIONS, BeginDecisionNameSchema } from "./v1";

/**
 * The operator API's call and run explorer (app/api/v1/operator/projects/{projectId}/calls, …/runs):
 * lists paged by an opaque cursor, a call's ledger, a run's calls and events across its subagents.
 */
const isoTime = z.iso.datetime();
const instant = z.iso.datetime({ offset: true });
/** Filters by a tool or an id: in NFC, as the gate stores them, so either spelling finds them. */
const id = z.string().min(1).max(200).normalize("NFC");

export const CALL_STATUSES = ["in_progress", "succeeded", "failed", "released", "accepted"] as const;

/**
 * What the decision filter accepts: every begin decision (the contract's own list), a lease lost, an
 * operator's eviction, or a status check that could not tell (`check_unknown`: the operators' queue).
 */
export const CALL_DECISION_FILTERS = [...BEGIN_DECISIONS, "lease_lost", "evicted", "check_unknown"] as const;
export type CallDecisionFilter = (typeof CALL_DECISION_FILTERS)[number];

const oneDecision = z.union([BeginDecisionNameSchema, z.enum(["lease_lost", "evicted", "check_unknown"])]);
/** One decision, or several comma-separated; either way a list of distinct decisions. */
const decisionFilter = z
  .union([
    oneDecision.transform((decision) => [decision]),
    z
      .string()
      .max(300)
      .regex(/^[a-z_]+(,[a-z_]+)+$/, "decisions separated by commas")
      .transform((value) => [...new Set(value.split(","))])
      .pipe(z.array(oneDecision)),
  ])
  .meta({ id: "CallDecisionFilter" });

const cursor = z
  .string()
  .max(4_000)
  .refine((value) => decodeCursor(value) !== null || decodeSortCursor(value) !== null, "not a cursor this API handed out (pass nextCursor back unchanged)")
  .describe("`nextCursor` of the previous page, unchanged");

const limit = z.coerce.number().int().min(1).max(200).default(50).describe("Page size (default 50, at most 200)");

/**
 * The calls list's sortable columns (the dashboard table's headers), each `<column>:<asc|desc>`.
 * Ties go by call id in the same direction, so every sort is a total order a cursor can resume.
 * lastDecision is not among them: it is each call's latest begin, which no index holds.
 */
export const CALL_SORT_COLUMNS = ["firstSeen", "tool", "status", "run", "agent", "attempts", "key"] as const;
export type CallSortColumn = (typeof CALL_SORT_COLUMNS)[number];
/** Columns whose values are numbers (the rest are text; `agent` may be blank). */
export const NUMERIC_CALL_SORTS: readonly CallSortColumn[] = ["firstSeen", "attempts"];
export const DEFAULT_CALL_SORT = "firstSeen:desc" as const;
/** A list's `sort` parameter: `<column>:<asc|desc>` over its columns, `fallback` when absent. */
function sortParam<C extends string>(columns: readonly C[], fallback: `${C}:asc` | `${C}:desc`, description: string, metaId: string) {
  const values = columns.flatMap((column) => [`${column}:asc`, `${column}:desc`] as const) as [`${C}:asc` | `${C}:desc`, ...(`${C}:asc` | `${C}:desc`)[]];
  // `fallback` is one of `values` by its type; zod cannot see that through the generic.
  return z.enum(values).default(fallback as never).describe(description).meta({ id: metaId });
}

export const CallSortSchema = sortParam(
  CALL_SORT_COLUMNS,
  DEFAULT_CALL_SORT,
  "Order of the whole list, `<column>:<asc|desc>` (default `firstSeen:desc`, newest first): firstSeen, tool, status, run, agent, attempts or key. Ties go by call id in the same direction; calls without an agent come last either way. Text compares by the database's collation (bytewise on SQLite and on a C-collated Postgres). A cursor resumes the sort it came from",
  "CallSort",
);
export type CallSort = z.infer<typeof CallSortSchema>;

/**
 * Whether a cursor was handed out for this sort: the default (newest-first) order's cursors are
 * (time, id); another sort's carry the sort and a value of its column's type.
 */
function cursorFits(text: string, sort: string, fallback: string, numeric: readonly string[], nullable: readonly string[] = []): boolean {
  if (sort === fallback) return decodeCursor(text) !== null;
  const cursor = decodeSortCursor(text);
  if (!cursor || cursor.sort !== sort) return false;
  const column = sort.split(":")[0]!;
  if (cursor.value === null) return nullable.includes(column);
  return numeric.includes(column) ? typeof cursor.value === "number" : typeof cursor.value === "string";
}

export const cursorFitsSort = (text: string, sort: string) => cursorFits(text, sort, DEFAULT_CALL_SORT, NUMERIC_CALL_SORTS, ["agent"]);

export const CallListQuerySchema = z
  .object({
    tool: id.optional().describe("Only this tool"),
    status: z.enum(CALL_STATUSES).optional().describe("Only records in this state"),
    decision: decisionFilter.optional().describe("Only calls whose ledger holds this decision (any attempt), or any of several, comma-separated (`replay,in_progress,refused`)"),
    runId: id.optional().describe("Only this run (subagents included)"),
    agentId: id.optional().describe("Only calls first made by this (sub)agent"),
    key: z.string().min(1).max(300).optional().describe("Key prefix: a whole key also finds its resend generations (`key:g2`, …)"),
    q: z
      .string()
      .trim()
      .min(1)
      .max(200)
      .normalize("NFC")
      .optional()
      .describe("A value in the call's args or result, as stored (case-insensitive substring of their JSON). Redacted fields are stored masked, so their values are never found"),
    from: instant.optional().describe("First seen at or after (ISO 8601)"),
    to: instant.optional().describe("First seen before (ISO 8601)"),
    decidedFrom: instant.optional().describe("Only calls with a matching decision (with `decision`; else any begin) at or after this time: a chart bar's calls"),
    decidedTo: instant.optional().describe("Only calls with a matching decision (with `decision`; else any begin) before this time"),
    shadow: z
      .enum(["prevented"])
      .optional()
      .describe("prevented: only calls that ran in shadow mode though the gate would have prevented them (would_replay, would_wait, would_refuse, would_conflict)"),
    sort: CallSortSchema,
    cursor: cursor.optional(),
    limit,
  })
  .strict()
  .refine((q) => q.cursor === undefined || cursorFitsSort(q.cursor, q.sort), {
    message: "this cursor belongs to another sort: pass nextCursor back with the same `sort`",
    path: ["cursor"],
  })
  .refine((q) => !q.from || !q.to || Date.parse(q.from) < Date.parse(q.to), { message: "`from` must be before `to`", path: ["from"] })
  .refine((q) => !q.decidedFrom || !q.decidedTo || Date.parse(q.decidedFrom) < Date.parse(q.decidedTo), {
    message: "`decidedFrom` must be before `decidedTo`",
    path: ["decidedFrom"],
  });

export type CallListQuery = z.infer<typeof CallListQuerySchema>;
export type DecisionListQuery = z.infer<typeof DecisionListQuerySchema>;
export type DecisionList = z.infer<typeof DecisionListSchema>;

export const LastDecisionSchema = z.object({ decision: z.string(), at: isoTime }).describe("The latest begin's answer");

export const CallSummarySchema = z
  .object({
    callId: z.string(),
    tool: z.string(),
    key: z.string(),
    runId: z.string(),
    stepId: z.string().nullable(),
    scope: z.string().nullable(),
    agentId: z.string().nullable().describe("The (sub)agent whose begin created the record"),
    status: z.enum(CALL_STATUSES),
    attempts: z.number().int().describe("Execution leases granted so far"),
    replays: z.number().int(),
    generation: z.number().int().describe("1 for the derived key, n for a resend's `key:g<n>`"),
    createdAt: isoTime.describe("First seen"),
    updatedAt: isoTime,
    completedAt: isoTime.nullable(),
    lastDecision: LastDecisionSchema.nullable(),
  })
  .meta({ id: "CallSummary" });

export const CallListSchema = z
  .object({
    calls: z.array(CallSummarySchema),
    nextCursor: z.string().nullable().describe("Pass as `cursor` (with the same `sort`) for the next page; null on the last page"),
  })
  .meta({ id: "CallList" });

/** The decisions behind a figure (issue #38 §1): begins, with or without a record (a loop block has none). */
export const DecisionListQuerySchema = z
  .object({
    tool: id.optional().describe("Only this tool"),
    decision: decisionFilter.describe("These begin decisions, comma-separated"),
    decidedFrom: instant.describe("At or after this time"),
    decidedTo: instant.describe("Before this time"),
  })
  .strict()
  .meta({ id: "DecisionListQuery" });

export const LedgerEventSchema = z
  .object({
    id: z.string(),
    callId: z.string().nullable().describe("null for a begin the loop detector blocked before any record"),
    at: isoTime,
    type: z.enum(["begin", "complete", "heartbeat", "lease_lost", "resend", "operator", "saga", "check"]),
    decision: z.string(),
    attempt: z.number().int(),
    tool: z.string(),
    key: z.string(),
    agentId: z.string().nullable().describe("The (sub)agent that made this request"),
    toolCallId: z.string().nullable(),
    argsMismatch: z.boolean(),
    latencyUs: z.number().int(),
    policyVersion: z.number().int(),
    detail: z.unknown().nullable().describe("Loop warnings, an operator's reason or note, a resend's generation; for a begin with different args, the args it sent (`args`, redacted)"),
    shadowDecision: z
      .string()
      .nullable()
      .optional()
      .describe("Shadow mode: what the gate would have answered (would_replay, would_refuse, would_block, …) when it answered execute"),
  })
  .meta({ id: "LedgerEvent" });

export const CallLedgerSchema = z
  .object({
    callId: z.string(),
    args: z.unknown().nullable().describe("The arguments as recorded, masked again with the tool's current redactFields"),
    result: z.unknown().nullable().describe("The stored result (succeeded only), masked the same way"),
    redactFields: z.array(z.string()).describe("The tool's current redactFields: these show as [REDACTED]"),
    events: z.array(LedgerEventSchema).describe("Oldest first"),
    truncated: z.boolean().describe("Only the latest events are listed"),
  })
  .meta({ id: "CallLedger" });

/** A run's states a search can ask for: it has a call running / failed, a begin blocked, or every call succeeded. */
export const RUN_STATES = ["in_progress", "failed", "blocked", "succeeded"] as const;
export type RunState = (typeof RUN_STATES)[number];

/**
 * The runs list's sortable columns: its first call's time (`started`, the default newest first)
 * or run id, or a count. Ties go by the run's first call id; counts grow while a run goes on, so
 * a run still running can move between pages.
 */
export const RUN_SORT_COLUMNS = ["started", "run", "lastActivity", "calls", "agents", "failed", "dedupHits"] as const;
export type RunSortColumn = (typeof RUN_SORT_COLUMNS)[number];
export const DEFAULT_RUN_SORT = "started:desc" as const;
export const RunSortSchema = sortParam(
  RUN_SORT_COLUMNS,
  DEFAULT_RUN_SORT,
  "Order of the whole list, `<column>:<asc|desc>` (default `started:desc`, newest first): started, run, lastActivity, calls, agents, failed or dedupHits. Ties go by the run's first call id in the same direction. Counts grow while a run goes on: a run that changes while the list is paged can move to another page. A cursor resumes the sort it came from",
  "RunSort",
);

export const RunListQuerySchema = z
  .object({
    runId: id.optional().describe("A run id, or the start of one"),
    agentId: id.optional().describe("Only runs in which this (sub)agent asked the gate anything"),
    tool: id.optional().describe("Only runs that called this tool"),
    state: z
      .enum(RUN_STATES)
      .optional()
      .describe("in_progress / failed: a call of the run is in that state; blocked: the loop detector blocked one of its begins; succeeded: every call succeeded"),
    sort: RunSortSchema,
    cursor: cursor.optional(),
    limit,
  })
  .strict()
  .refine((q) => q.cursor === undefined || cursorFits(q.cursor, q.sort, DEFAULT_RUN_SORT, RUN_SORT_COLUMNS.filter((c) => c !== "run")), {
    message: "this cursor belongs to another sort: pass nextCursor back with the same `sort`",
    path: ["cursor"],
  });
export type RunListQuery = z.infer<typeof RunListQuerySchema>;

export const RunSummarySchema = z
  .object({
    runId: z.string(),
    startedAt: isoTime.describe("Its first call"),
    lastActivityAt: isoTime,
    calls: z.number().int(),
    tools: z.number().int(),
    agents: z.number().int().describe("Distinct (sub)agents that asked the gate"),
    succeeded: z.number().int(),
    failed: z.number().int(),
    inProgress: z.number().int(),
    begins: z.number().int(),
    dedupHits: z.number().int().describe("Begins answered replay, in_progress or refused"),
    blocked: z.number().int().describe("Begins the loop detector blocked"),
    sagaState: z
      .enum([...SAGA_RUN_STATES, "none"])
      .describe("Sagas: none when no step of the run registered an undo (and it was not aborted); else running until aborted, then compensating → compensated | compensation_failed"),
  })
  .meta({ id: "RunSummary" });

export const RunListSchema = z
  .object({ runs: z.array(RunSummarySchema), nextCursor: z.string().nullable() })
  .meta({ id: "RunList", description: "Runs, newest first (by their first call) unless sorted" });

export const RunDetailSchema = z
  .object({
    runId: z.string(),
    calls: z.array(CallSummarySchema).describe("Oldest first"),
    events: z.array(LedgerEventSchema).describe("Oldest first, every (sub)agent"),
    truncated: z.boolean().describe("The run has more calls or events than one answer carries (the oldest are listed)"),
  })
  .meta({ id: "RunDetail" });

export type CallSummary = z.infer<typeof CallSummarySchema>;
export type CallList = z.infer<typeof CallListSchema>;
export type LedgerEvent = z.infer<typeof LedgerEventSchema>;
export type CallLedger = z.infer<typeof CallLedgerSchema>;
export type RunSummary = z.infer<typeof RunSummarySchema>;
export type RunDetail = z.infer<typeof RunDetailSchema>;

export const DecisionListSchema = z
  .object({
    total: z.number().int().describe("Every matching begin in the window: what the figure counted"),
    withoutRecord: z.number().int().describe("Of those, begins that never created a record (loop or budget blocks before any call)"),
    events: z.array(LedgerEventSchema.extend({ runId: z.string() })).describe("Newest first, at most 500"),
  })
  .meta({ id: "DecisionList", description: "The begin decisions a figure counted, each one, with or without a call record" });

