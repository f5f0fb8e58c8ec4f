import { num, strOrNull } from "./columns";
import type { LedgerEventRow, LedgerStepRow, SimulationLedgerRows } from "../../ports/policy-store";

/**
 * The policy simulator's read of one tool's ledger (both providers): the latest `sampleSize`
 * begins, as many again before them to set up the records they were decided against, every
 * other event of the tool in that span, and the loop steps its runs took elsewhere. All reads
 * follow the (project_id, tool, id) and (project_id, run_id, loop_step, id) indexes.
 */
export const SIMULATION_SQL = {
  /** The id of the n-th latest begin of the tool (0-based offset), or nothing. */
  beginAt: `SELECT id FROM events WHERE project_id = $1 AND tool = $2 AND type = 'begin' ORDER BY id DESC LIMIT 1 OFFSET $3`,
  events: `SELECT e.id, e.type, e.decision, e.at, e.key, e.call_id, e.attempt, e.run_id, e.agent_id, e.tool_call_id,
      e.args_fingerprint, e.loop_step, e.detail, e.policy_version, e.shadow_decision, r.step_id, r.scope, r.args AS record_args, r.args_fingerprint AS record_fingerprint
    FROM events e LEFT JOIN call_records r ON r.id = e.call_id AND r.project_id = e.project_id
    WHERE e.project_id = $1 AND e.tool = $2 AND e.id >= $3 ORDER BY e.id LIMIT $4`,
  /** Other tools' steps of the sampled runs, and every step of theirs from before the span (newest first). */
  steps: `SELECT id, run_id, tool, args_fingerprint FROM events
    WHERE project_id = $1 AND loop_step = 1 AND (tool <> $2 OR id < $3)
      AND run_id IN (SELECT run_id FROM events WHERE project_id = $1 AND tool = $2 AND type = 'begin' AND id >= $3)
    ORDER BY id DESC LIMIT $4`,
};

/** Rows read per sampled begin at most: completes, heartbeats and the warm-up span ride along. */
const EVENTS_PER_BEGIN = 20;
const MAX_STEPS = 50_000;

type Row = Record<string, unknown>;
type Query = (sql: string, params: unknown[]) => Promise<Row[]>;

export async function readSimulationLedger(query: Query, projectId: string, tool: string, sampleSize: number): Promise<SimulationLedgerRows> {
  const boundary = async (offset: number) => strOrNull((await query(SIMULATION_SQL.beginAt, [projectId, tool, offset]))[0]?.id) ?? "";
  const [countedFrom, from] = await Promise.all([boundary(sampleSize - 1), boundary(2 * sampleSize - 1)]);
  const [events, steps] = await Promise.all([
    query(SIMULATION_SQL.events, [projectId, tool, from, 2 * sampleSize * EVENTS_PER_BEGIN]),
    query(SIMULATION_SQL.steps, [projectId, tool, from, MAX_STEPS]),
  ]);
  return { countedFrom, events: events.map(rowToLedgerEvent), steps: steps.map(rowToStep).reverse() };
}

function rowToLedgerEvent(row: Row): LedgerEventRow {
  return {
    id: String(row.id),
    type: String(row.type),
    decision: String(row.decision),
    at: num(row.at),
    key: String(row.key),
    callId: strOrNull(row.call_id),
    attempt: num(row.attempt),
    runId: String(row.run_id),
    agentId: strOrNull(row.agent_id),
    toolCallId: strOrNull(row.tool_call_id),
    argsFingerprint: strOrNull(row.args_fingerprint),
    loopStep: num(row.loop_step) === 1,
    detail: strOrNull(row.detail),
    stepId: strOrNull(row.step_id),
    scope: strOrNull(row.scope),
    recordArgs: strOrNull(row.record_args),
    recordFingerprint: strOrNull(row.record_fingerprint),
    recordFound: row.record_fingerprint != null,
    policyVersion: row.policy_version == null ? null : num(row.policy_version),
    shadowDecision: strOrNull(row.shadow_decision),
  };
}

function rowToStep(row: Row): LedgerStepRow {
  return { id: String(row.id), runId: String(row.run_id), tool: String(row.tool), argsFingerprint: String(row.args_fingerprint) };
}
