import { canonicalize } from "../../core/canonical";
import { type ArgsFingerprinter, sameArgs } from "../../core/fingerprint";
import type { ToolPolicy } from "../../core/policy";
import type { BeginDecisionName } from "../../core/record";
import { type SimulationDrift, predictDraft } from "../../core/simulation-compare";
import type { CallIdentity, LedgerEntry, PastBegin } from "../../core/simulation-ledger";
import type { DecisionTally, UnreplayableCount } from "../../core/simulation-tally";
import type { LedgerEventRow, SimulationLedgerRows } from "../../store/ports/policy-store";

export interface Simulation {
  tool: string;
  sampled: number;
  from: number | null;
  to: number | null;
  policy: ToolPolicy;
  simulated: DecisionTally;
  /** The policy in force replayed over the same calls: what `simulated` is compared with. */
  baseline: DecisionTally;
  actual: DecisionTally;
  drift: SimulationDrift;
  /** The revision in force, the one `baseline` replays. */
  revision: number | null;
  unreplayable: UnreplayableCount[];
  assumedOutcomes: number;
}

/** A ledger row as the simulator replays it, or nothing (lease_lost, and what only annotates a begin). */
type Converted = LedgerEntry | null;

/**
 * Turns a tool's ledger (simulation-statements.ts) into the entries the simulator replays, and
 * replays them under the draft. `inForce` is the tool's policy now: what the recorded keys and
 * fingerprints were derived with, so what a key derivation under the draft may reuse. `fingerprint`
 * is the install's (install-fingerprinter.ts): what the recorded fingerprints are keyed with.
 */
export function simulateLedger(
  projectId: string,
  tool: string,
  draft: ToolPolicy,
  inForce: ToolPolicy,
  rows: SimulationLedgerRows,
  fingerprint: ArgsFingerprinter,
  inForceRevision: number | null = null,
): Simulation {
  const entries = toEntries(projectId, tool, inForce, rows, fingerprint);
  const counted = entries.filter((entry): entry is PastBegin => entry.type === "begin" && entry.counted);
  const result = predictDraft(entries, draft, inForce, inForceRevision, fingerprint);
  return {
    tool,
    sampled: counted.length,
    from: counted[0]?.at ?? null,
    to: counted.at(-1)?.at ?? null,
    policy: draft,
    simulated: result.simulated,
    baseline: result.baseline,
    actual: result.actual,
    drift: result.drift,
    revision: inForceRevision,
    unreplayable: result.unreplayable,
    assumedOutcomes: result.assumedOutcomes,
  };
}

export function toEntries(projectId: string, tool: string, inForce: ToolPolicy, rows: SimulationLedgerRows, fingerprint: ArgsFingerprinter): LedgerEntry[] {
  /** A resend raised the key's generation: the next begin on the key is the one that used it. */
  const raised = new Map<string, PastBegin["bypass"]>();
  const merged: { id: string; entry: LedgerEntry }[] = rows.steps.map((step) => ({
    id: step.id,
    entry: { type: "step", runId: step.runId, signature: { tool: step.tool, argsFingerprint: step.argsFingerprint } },
  }));
  for (const row of rows.events) {
    const entry = convert(row);
    if (entry) merged.push({ id: row.id, entry });
  }
  return merged.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)).map(({ entry }) => entry);

  function convert(row: LedgerEventRow): Converted {
    const detail = parseDetail(row.detail);
    switch (row.type) {
      case "begin":
        return begin(row, detail);
      case "complete":
        return { type: "outcome", at: row.at, callId: row.callId!, attempt: row.attempt, state: row.decision as "succeeded" | "failed" | "released", resolved: false, cost: costOf(detail.cost) };
      case "heartbeat":
        return { type: "heartbeat", at: row.at, callId: row.callId!, attempt: row.attempt, extendSeconds: typeof detail.extendSeconds === "number" ? detail.extendSeconds : null };
      case "operator":
        if (row.decision === "evicted") return { type: "evict", at: row.at, callId: row.callId! };
        if (row.decision.startsWith("resolved_")) {
          return { type: "outcome", at: row.at, callId: row.callId!, attempt: row.attempt, state: row.decision === "resolved_failed" ? "failed" : "succeeded", resolved: true, cost: null };
        }
        return null;
      case "resend":
        if (row.decision === "generation_raised") raised.set(baseKey(row.key), detail.requestId ? "token" : "allow");
        return null;
      default:
        return null;
    }
  }

  function begin(row: LedgerEventRow, detail: Record<string, unknown>): PastBegin {
    const key = baseKey(row.key);
    const decision = row.decision as BeginDecisionName;
    // Begins record whether they carried a token or asked for one; older events only show it when
    // a generation was raised or approval was asked for.
    let bypass: PastBegin["bypass"] = detail.bypass === "token" || detail.bypass === "ask" ? detail.bypass : decision === "approval_required" ? "ask" : null;
    if (raised.has(key) && decision === "execute") {
      bypass ??= raised.get(key)!;
      raised.delete(key);
    }
    return {
      type: "begin",
      at: row.at,
      projectId,
      tool,
      runId: row.runId,
      agentId: row.agentId,
      toolCallId: row.toolCallId,
      key,
      argsFingerprint: row.argsFingerprint ?? "",
      identity: identityOf(row, inForce, fingerprint),
      decision,
      callId: row.callId,
      attempt: row.attempt,
      latched: decision === "replay" && !row.loopStep,
      loopWarned: detail.loopWarning !== undefined,
      bypass,
      counted: row.id >= rows.countedFrom,
      revision: row.policyVersion ?? undefined,
      shadowed: shadowedDecision(row.shadowDecision ?? null),
    };
  }
}

/** `would_replay` → `replay`: what enforce would have answered a shadow-mode begin. */
const SHADOWED: Record<string, BeginDecisionName> = {
  would_execute: "execute",
  would_replay: "replay",
  would_wait: "in_progress",
  would_verify: "verify",
  would_refuse: "refused",
  would_conflict: "conflict",
  would_require_approval: "approval_required",
  would_require_preview: "preview_required",
  would_block: "blocked",
};

function shadowedDecision(name: string | null): BeginDecisionName | null {
  return name === null ? null : (SHADOWED[name] ?? null);
}

/** Derived keys are hex digests: a generation (`:g2`) or an always-executing call's id (`:call_…`) follows a colon. */
function baseKey(key: string): string {
  return key.split(":")[0]!;
}

/**
 * What the record tells about a begin. A begin that created its record owns its step, scope and
 * arguments; a later begin on it shares only what its key was derived from.
 */
function identityOf(row: LedgerEventRow, inForce: ToolPolicy, fingerprint: ArgsFingerprinter): CallIdentity {
  const unknown: CallIdentity = { stepId: undefined, scope: undefined, args: undefined, argsKnown: false };
  if (!row.recordFound) return unknown;
  const created = (row.decision === "execute" || row.decision === "verify") && row.attempt === 1;
  const args = row.recordArgs === null ? undefined : (JSON.parse(row.recordArgs) as unknown);
  // Stored args are redacted: they stand for the call only if they fingerprint to what was recorded
  // (keyed with the install's secret, or unkeyed by a version from before keyed fingerprints).
  const argsKnown =
    row.argsFingerprint !== null &&
    row.argsFingerprint === row.recordFingerprint &&
    sameArgs(row.argsFingerprint, asCall(fingerprint(canonicalize(args ?? {}, inForce.ignoreFields))));
  const known = { ...unknown, args: argsKnown ? args : undefined, argsKnown };
  if (created) return { ...known, stepId: row.stepId, scope: row.scope };
  if (inForce.keyStrategy === "step") return row.stepId !== null ? { ...known, stepId: row.stepId } : { ...known, stepId: null, scope: row.scope };
  if (inForce.keyStrategy === "scope") return { ...known, scope: row.scope };
  return known;
}

/** A complete's reported cost, as its event detail keeps it. */
function costOf(value: unknown): { amount: number; currency: string } | null {
  if (typeof value !== "object" || value === null) return null;
  const { amount, currency } = value as { amount?: unknown; currency?: unknown };
  return typeof amount === "number" && typeof currency === "string" ? { amount, currency } : null;
}

function asCall(fingerprints: { keyed: string; legacy: string }) {
  return { argsFingerprint: fingerprints.keyed, legacyArgsFingerprint: fingerprints.legacy };
}

function parseDetail(text: string | null): Record<string, unknown> {
  if (text === null) return {};
  try {
    return JSON.parse(text) as Record<string, unknown>;
  } catch {
    return {};
  }
}
