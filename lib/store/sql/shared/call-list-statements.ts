import { DEDUP_HIT_DECISIONS } from "../../../core/rollup-tally";
import { SHADOW_PREVENTED_SQL } from "../../../core/shadow";
import type { RecordState } from "../../../core/record";
import type { ToolLedgerLine } from "../../../core/tool-figures";
import type { CallListFilter, CallListRow, CallListSortColumn, RunListFilter, RunListSortColumn, RunRow, SortedCallPage, SortedPage, SortedRunPage } from "../../ports/call-list";
import { EVENT_COLUMN_LIST, num, numOrNull, rowToEvent, strOrNull } from "../../hot/shared/columns";
import type { GateEvent } from "../../ports/gate-store";

/**
 * The calls and runs explorer's reads, for both providers (numbered placeholders, as in
 * statements.ts). Each list walks an index in its order — (project_id, <sort column>, id) for the
 * calls list (first_seen_at by default), (project_id, run_id, first_seen_at, id) for a run — and
 * stops at its LIMIT; the WHERE
 * clause holds only the filters given, so the planner never meets an `$n IS NULL OR …` it cannot
 * use an index for. Every statement is scoped by project_id first.
 */
type Row = Record<string, unknown>;

/** The dedup-hit decisions as SQL literals (constants of the code, never input). */
const DEDUP_SQL = DEDUP_HIT_DECISIONS.map((decision) => `'${decision}'`).join(", ");

const CALL_COLUMNS = `r.id, r.project_id, r.key, r.tool, r.run_id, r.step_id, r.scope, r.agent_id, r.state, r.attempt, r.replays, r.first_seen_at, r.updated_at, r.completed_at`;

/** Each listed record with its latest begin (one index seek per row, after the LIMIT), in the page's order. */
function withLastDecision(page: string, orderBy: string): string {
  return `SELECT p.*, le.decision AS last_decision, le.at AS last_decision_at FROM (${page}) p
    LEFT JOIN events le ON le.id = (
      SELECT e.id FROM events e WHERE e.project_id = p.project_id AND e.call_id = p.id AND e.type = 'begin' ORDER BY e.id DESC LIMIT 1
    )
    ORDER BY ${orderBy}`;
}

/** The record column each sort orders by; agent_id alone may be NULL (a call made without an agent id). */
const SORT_COLUMN: Record<CallListSortColumn, string> = {
  firstSeen: "first_seen_at",
  tool: "tool",
  status: "state",
  run: "run_id",
  agent: "agent_id",
  attempts: "attempt",
  key: "key",
};
const NULLABLE_SORT: ReadonlySet<CallListSortColumn> = new Set(["agent"]);

type Dir = "asc" | "desc";

/**
 * A sort's ORDER BY: the value, then the id, both in the sort's direction. A blank (NULL) goes
 * last either way, spelled `IS NULL` first since SQLite and Postgres put NULLs at opposite ends.
 */
function sortOrder(value: string, id: string, dir: Dir, nullable: boolean): string {
  const d = dir === "asc" ? "ASC" : "DESC";
  return `${nullable ? `${value} IS NULL, ` : ""}${value} ${d}, ${id} ${d}`;
}

/**
 * Rows strictly after a position in the sort (keyset): a bounded range on the value (`>=`/`<=`)
 * an index can seek, then past the tie by id. Blanks come after every value.
 */
function afterPosition(value: string, id: string, dir: Dir, nullable: boolean, after: NonNullable<SortedPage<string>["after"]>, p: Params): string {
  const [gt, ge] = dir === "asc" ? [">", ">="] : ["<", "<="];
  const afterId = p.add(after.id);
  if (after.value === null) return `${value} IS NULL AND ${id} ${gt} ${afterId}`;
  const at = p.add(after.value);
  const past = `${value} ${ge} ${at} AND (${value} ${gt} ${at} OR ${id} ${gt} ${afterId})`;
  return nullable ? `(${value} IS NULL OR (${past}))` : past;
}

/** The ledger entry a decision filter looks for. */
function decisionMatch(decision: string): { type: string; decision: string | null } {
  if (decision === "lease_lost") return { type: "lease_lost", decision: null };
  if (decision === "evicted") return { type: "operator", decision: "evicted" };
  if (decision === "check_unknown") return { type: "check", decision: "unknown" };
  return { type: "begin", decision };
}

/** LIKE's wildcards and its escape character, taken literally. */
const escapeLike = (text: string) => text.replace(/[\\%_]/g, (c) => `\\${c}`);

class Params {
  readonly values: unknown[] = [];
  add(value: unknown): string {
    this.values.push(value);
    return `$${this.values.length}`;
  }
}

export function callListStatement(projectId: string, filter: CallListFilter, page: SortedCallPage): { sql: string; values: unknown[] } {
  const p = new Params();
  const where = [`r.project_id = ${p.add(projectId)}`];
  if (filter.tool !== undefined) where.push(`r.tool = ${p.add(filter.tool)}`);
  if (filter.status !== undefined) where.push(`r.state = ${p.add(filter.status)}`);
  if (filter.runId !== undefined) where.push(`r.run_id = ${p.add(filter.runId)}`);
  if (filter.agentId !== undefined) where.push(`r.agent_id = ${p.add(filter.agentId)}`);
  // substr, not LIKE or a range: the same prefix semantics whatever the database's collation.
  if (filter.keyPrefix !== undefined) where.push(`substr(r.key, 1, ${p.add(filter.keyPrefix.length)}) = ${p.add(filter.keyPrefix)}`);
  if (filter.from !== undefined) where.push(`r.first_seen_at >= ${p.add(filter.from)}`);
  if (filter.to !== undefined) where.push(`r.first_seen_at < ${p.add(filter.to)}`);
  if (filter.search !== undefined) {
    // The stored JSON is redacted at write, so a masked value is not there to be found. lower() on
    // both sides and LIKE with an escape: one case-insensitive meaning on SQLite and Postgres.
    const pattern = p.add(`%${escapeLike(filter.search.toLowerCase())}%`);
    where.push(`(lower(r.args) LIKE ${pattern} ESCAPE '\\' OR lower(r.result) LIKE ${pattern} ESCAPE '\\')`);
  }
  const column = (t: string) => `${t}.${SORT_COLUMN[page.sort.column]}`;
  const nullable = NULLABLE_SORT.has(page.sort.column);
  if (page.after) where.push(afterPosition(column("r"), "r.id", page.sort.dir, nullable, page.after, p));
  if (filter.decisions !== undefined || filter.decidedFrom !== undefined || filter.decidedTo !== undefined) {
    const matches = (filter.decisions ?? ["*"]).map((decision) => {
      if (decision === "*") return `e.type = 'begin'`;
      const match = decisionMatch(decision);
      return match.decision === null ? `e.type = ${p.add(match.type)}` : `(e.type = ${p.add(match.type)} AND e.decision = ${p.add(match.decision)})`;
    });
    const window = [
      filter.decidedFrom === undefined ? "" : ` AND e.at >= ${p.add(filter.decidedFrom)}`,
      filter.decidedTo === undefined ? "" : ` AND e.at < ${p.add(filter.decidedTo)}`,
    ].join("");
    where.push(`EXISTS (SELECT 1 FROM events e WHERE e.project_id = r.project_id AND e.call_id = r.id AND (${matches.join(" OR ")})${window})`);
  }
  if (filter.shadowPrevented) {
    where.push(`EXISTS (SELECT 1 FROM events e WHERE e.project_id = r.project_id AND e.call_id = r.id AND e.shadow_decision IN (${SHADOW_PREVENTED_SQL}))`);
  }
  const inner = `SELECT ${CALL_COLUMNS} FROM call_records r WHERE ${where.join(" AND ")} ORDER BY ${sortOrder(column("r"), "r.id", page.sort.dir, nullable)} LIMIT ${p.add(page.limit)}`;
  return { sql: withLastDecision(inner, sortOrder(column("p"), "p.id", page.sort.dir, nullable)), values: p.values };
}

const RUN_CALLS = withLastDecision(
  `SELECT ${CALL_COLUMNS} FROM call_records r WHERE r.project_id = $1 AND r.run_id = $2 ORDER BY r.first_seen_at, r.id LIMIT $3`,
  "p.first_seen_at ASC, p.id ASC",
);

/** A run's counts, each a seek on the run's own rows (the (project_id, run_id, …) indexes of both tables). */
const inRunCount = (table: "call_records" | "events", condition: string) =>
  `(SELECT COUNT(*) FROM ${table} x WHERE x.project_id = r.project_id AND x.run_id = r.run_id AND ${condition})`;

/**
 * What each runs sort orders by, on the run's first record `r`. The run id and start never change;
 * the counts (and last activity) grow while the run goes on, so a run can move while it is paged.
 */
const RUN_SORT_VALUE: Record<RunListSortColumn, string> = {
  started: "r.first_seen_at",
  run: "r.run_id",
  calls: inRunCount("call_records", "1 = 1"),
  failed: inRunCount("call_records", "x.state = 'failed'"),
  dedupHits: inRunCount("events", `x.type = 'begin' AND x.decision IN (${DEDUP_SQL})`),
  agents: `(SELECT COUNT(DISTINCT COALESCE(x.agent_id, '')) FROM events x WHERE x.project_id = r.project_id AND x.run_id = r.run_id AND x.type = 'begin')`,
  lastActivity: `(SELECT MAX(u.t) FROM (
      SELECT MAX(x.updated_at) AS t FROM call_records x WHERE x.project_id = r.project_id AND x.run_id = r.run_id
      UNION ALL SELECT MAX(x.at) AS t FROM events x WHERE x.project_id = r.project_id AND x.run_id = r.run_id AND x.type = 'begin'
    ) u)`,
};

/**
 * A page of runs in the page's sort: each run's first record `r` (by first seen, then id), with its
 * sort value. By start or run id the page walks an index and stops at its LIMIT, asking per
 * candidate whether an older record of its run exists (a seek on the run's index). A count's sort
 * must see every matching run: it numbers each run's records in one pass of the project's rows
 * (ROW_NUMBER, on SQLite and Postgres alike) instead, then counts per run. Measured on Postgres with
 * 90,000 calls in 1,800 runs of one project: 136 ms for a page by calls against 974 ms with the
 * per-record probe.
 */
function runPageStatement(projectId: string, page: SortedRunPage, filter: RunListFilter): { sql: string; values: unknown[] } {
  const p = new Params();
  const project = p.add(projectId);
  const { column, dir } = page.sort;
  if (column === "started" || column === "run") {
    const where = [`r.project_id = ${project}`, ...runFilterClauses(filter, p)];
    where.push(`NOT EXISTS (SELECT 1 FROM call_records o WHERE o.project_id = r.project_id AND o.run_id = r.run_id
    AND o.first_seen_at <= r.first_seen_at AND (o.first_seen_at < r.first_seen_at OR o.id < r.id))`);
    const value = RUN_SORT_VALUE[column];
    if (page.after) where.push(afterPosition(value, "r.id", dir, false, page.after, p));
    return {
      sql: `SELECT r.run_id, r.first_seen_at, r.id, ${value} AS sort_value FROM call_records r WHERE ${where.join(" AND ")} ORDER BY ${sortOrder(value, "r.id", dir, false)} LIMIT ${p.add(page.limit)}`,
      values: p.values,
    };
  }
  const numbered = `SELECT f.id, f.project_id, f.run_id, f.first_seen_at, ROW_NUMBER() OVER (PARTITION BY f.run_id ORDER BY f.first_seen_at, f.id) AS nth
    FROM call_records f WHERE f.project_id = ${project}`;
  const where = ["r.nth = 1", ...runFilterClauses(filter, p)];
  const firsts = `SELECT r.run_id, r.first_seen_at, r.id, ${RUN_SORT_VALUE[column]} AS sort_value FROM (${numbered}) r WHERE ${where.join(" AND ")}`;
  const after = page.after ? ` WHERE ${afterPosition("s.sort_value", "s.id", dir, false, page.after, p)}` : "";
  return { sql: `SELECT * FROM (${firsts}) s${after} ORDER BY ${sortOrder("s.sort_value", "s.id", dir, false)} LIMIT ${p.add(page.limit)}`, values: p.values };
}

/** A run's search, as conditions on its first record `r` (each a seek on the run's own rows). */
function runFilterClauses(filter: RunListFilter, p: Params): string[] {
  const clauses: string[] = [];
  const inRun = (table: "call_records" | "events", condition: string) =>
    `EXISTS (SELECT 1 FROM ${table} x WHERE x.project_id = r.project_id AND x.run_id = r.run_id AND ${condition})`;
  if (filter.runIdPrefix !== undefined) {
    const prefix = p.add(filter.runIdPrefix);
    clauses.push(`substr(r.run_id, 1, length(CAST(${prefix} AS TEXT))) = CAST(${prefix} AS TEXT)`);
  }
  if (filter.tool !== undefined) clauses.push(inRun("call_records", `x.tool = ${p.add(filter.tool)}`));
  if (filter.agentId !== undefined) clauses.push(inRun("events", `x.agent_id = ${p.add(filter.agentId)}`));
  switch (filter.state) {
    case "in_progress":
    case "failed":
      clauses.push(inRun("call_records", `x.state = ${p.add(filter.state)}`));
      break;
    case "blocked":
      clauses.push(inRun("events", `x.type = 'begin' AND x.decision = 'blocked'`));
      break;
    case "succeeded":
      clauses.push(`NOT ${inRun("call_records", `x.state <> 'succeeded'`)}`);
      break;
  }
  return clauses;
}

const inList = (from: number, count: number) => Array.from({ length: count }, (_, i) => `$${from + i}`).join(", ");
const DEDUP = DEDUP_SQL;
const count = (condition: string) => `SUM(CASE WHEN ${condition} THEN 1 ELSE 0 END)`;

const runCallStats = (runs: number) => `SELECT run_id, COUNT(*) AS calls, COUNT(DISTINCT tool) AS tools, MAX(updated_at) AS last_at,
  ${count("state = 'succeeded'")} AS succeeded, ${count("state = 'failed'")} AS failed, ${count("state = 'in_progress'")} AS in_progress
  FROM call_records WHERE project_id = $1 AND run_id IN (${inList(2, runs)}) GROUP BY run_id`;

const runBeginStats = (runs: number) => `SELECT run_id, COUNT(*) AS begins, ${count(`decision IN (${DEDUP})`)} AS dedup_hits,
  ${count("decision = 'blocked'")} AS blocked, COUNT(DISTINCT COALESCE(agent_id, '')) AS agents, MAX(at) AS last_at
  FROM events WHERE project_id = $1 AND run_id IN (${inList(2, runs)}) AND type = 'begin' GROUP BY run_id`;

export function rowToCallListRow(row: Row): CallListRow {
  return {
    id: String(row.id),
    projectId: String(row.project_id),
    key: String(row.key),
    tool: String(row.tool),
    runId: String(row.run_id),
    stepId: strOrNull(row.step_id),
    scope: strOrNull(row.scope),
    agentId: strOrNull(row.agent_id),
    state: String(row.state) as RecordState,
    attempt: num(row.attempt),
    replays: num(row.replays),
    firstSeenAt: num(row.first_seen_at),
    updatedAt: num(row.updated_at),
    completedAt: numOrNull(row.completed_at),
    lastDecision: strOrNull(row.last_decision),
    lastDecisionAt: numOrNull(row.last_decision_at),
  };
}

export interface DecisionFilter {
  decisions: readonly string[];
  from: number;
  to: number;
  tool?: string;
}

/** The explorer's reads, written once: each operator store extends this with its provider's way to run a query for its rows. */
export abstract class CallListReads {
  protected abstract rows(sql: string, values: unknown[]): Promise<Row[]>;

  async listCalls(projectId: string, filter: CallListFilter, page: SortedCallPage): Promise<CallListRow[]> {
    const { sql, values } = callListStatement(projectId, filter, page);
    return (await this.rows(sql, values)).map(rowToCallListRow);
  }

  async listRuns(projectId: string, page: SortedRunPage, filter: RunListFilter = {}): Promise<RunRow[]> {
    const { sql, values } = runPageStatement(projectId, page, filter);
    const firsts = await this.rows(sql, values);
    if (firsts.length === 0) return [];
    const runIds = firsts.map((row) => String(row.run_id));
    const [calls, begins] = await Promise.all([
      this.rows(runCallStats(runIds.length), [projectId, ...runIds]),
      this.rows(runBeginStats(runIds.length), [projectId, ...runIds]),
    ]);
    const callsOf = new Map(calls.map((row) => [String(row.run_id), row]));
    const beginsOf = new Map(begins.map((row) => [String(row.run_id), row]));
    return firsts.map((first) => {
      const runId = String(first.run_id);
      const c = callsOf.get(runId) ?? {};
      const b = beginsOf.get(runId) ?? {};
      const startedAt = num(first.first_seen_at);
      return {
        sortValue: typeof first.sort_value === "string" && page.sort.column === "run" ? first.sort_value : num(first.sort_value),
        runId,
        firstCallId: String(first.id),
        startedAt,
        lastActivityAt: Math.max(startedAt, num(c.last_at ?? 0), num(b.last_at ?? 0)),
        calls: num(c.calls ?? 0),
        tools: num(c.tools ?? 0),
        agents: num(b.agents ?? 0),
        succeeded: num(c.succeeded ?? 0),
        failed: num(c.failed ?? 0),
        inProgress: num(c.in_progress ?? 0),
        begins: num(b.begins ?? 0),
        dedupHits: num(b.dedup_hits ?? 0),
        blocked: num(b.blocked ?? 0),
      };
    });
  }

  /** A run's calls, oldest first. */
  async listRunCalls(projectId: string, runId: string, limit: number): Promise<CallListRow[]> {
    return (await this.rows(RUN_CALLS, [projectId, runId, limit])).map(rowToCallListRow);
  }

  /** A run's ledger, every (sub)agent, oldest first. */
  async listRunEvents(projectId: string, runId: string, limit: number): Promise<GateEvent[]> {
    const sql = `SELECT ${EVENT_COLUMN_LIST} FROM events WHERE project_id = $1 AND run_id = $2 ORDER BY id LIMIT $3`;
    return (await this.rows(sql, [projectId, runId, limit])).map(rowToEvent);
  }

  /**
   * The begins a figure counted (issue #38 §1): every begin with these decisions in the window,
   * newest first, with or without a record, and how many there are in all.
   */
  async listDecisions(projectId: string, filter: DecisionFilter, limit: number): Promise<{ total: number; withoutRecord: number; events: GateEvent[] }> {
    const values: unknown[] = [projectId, filter.from, filter.to];
    const inDecisions = filter.decisions.map((decision) => `$${values.push(decision)}`).join(", ");
    const tool = filter.tool === undefined ? "" : ` AND tool = $${values.push(filter.tool)}`;
    const where = `project_id = $1 AND type = 'begin' AND at >= $2 AND at < $3 AND decision IN (${inDecisions})${tool}`;
    const [counts, rows] = await Promise.all([
      this.rows(`SELECT COUNT(*) AS total, SUM(CASE WHEN call_id IS NULL THEN 1 ELSE 0 END) AS without_record FROM events WHERE ${where}`, values),
      this.rows(`SELECT ${EVENT_COLUMN_LIST} FROM events WHERE ${where} ORDER BY id DESC LIMIT $${values.length + 1}`, [...values, limit]),
    ]);
    return { total: num(counts[0]?.total ?? 0), withoutRecord: num(counts[0]?.without_record ?? 0), events: rows.map(rowToEvent) };
  }

  /** A tool's begins and completes in [from, to), oldest first (the newest `limit` of them). */
  async toolLedger(projectId: string, tool: string, from: number, to: number, limit: number): Promise<ToolLedgerLine[]> {
    // A complete's detail carries its reported cost; begins' details are not needed.
    const sql = `SELECT type, decision, call_id, attempt, at, id, CASE WHEN type = 'complete' THEN detail ELSE NULL END AS detail FROM events
      WHERE project_id = $1 AND tool = $2 AND type IN ('begin', 'complete') AND at >= $3 AND at < $4 ORDER BY id DESC LIMIT $5`;
    const rows = await this.rows(sql, [projectId, tool, from, to, limit]);
    return rows.reverse().map((row) => ({ type: String(row.type), decision: String(row.decision), callId: strOrNull(row.call_id), attempt: num(row.attempt), at: num(row.at), detail: strOrNull(row.detail) }));
  }

  /** A call's latest `limit` events, oldest first. */
  async listCallEvents(projectId: string, callId: string, limit: number): Promise<GateEvent[]> {
    const sql = `SELECT ${EVENT_COLUMN_LIST} FROM events WHERE project_id = $1 AND call_id = $2 ORDER BY id DESC LIMIT $3`;
    return (await this.rows(sql, [projectId, callId, limit])).map(rowToEvent).reverse();
  }
}
