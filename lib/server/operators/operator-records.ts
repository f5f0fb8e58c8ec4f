import { baseKeyOf, generationKey, isCompleted } from "../../core/generations";
import { redact } from "../../core/redact";
import { type CallRecord, leaseIsLive } from "../../core/record";
import type { OperatorStore } from "../../store/ports/operator-store";
import type { GateStore } from "../../store/ports/gate-store";
import { AppError } from "../app-error";
import { recordEvent } from "../gate/gate-events";
import { type Actor, auditEntry } from "./operator-audit";
import type { PolicySource } from "../policies/policy-source";

export interface ResolveInput {
  outcome: "succeeded" | "failed";
  result?: unknown;
  error?: { message: string };
  note: string;
}

/**
 * An operator's manual actions on a record: evict it (the next begin executes afresh, under the
 * same key) or resolve it (record the outcome found downstream for a verify or lease_lost case).
 * Each is a compare-and-set on the record with its ledger event and its audit entry, at once.
 */
export class OperatorRecords {
  constructor(
    private readonly store: OperatorStore,
    private readonly gate: GateStore,
    private readonly policies: PolicySource,
    private readonly clock: () => number = Date.now,
  ) {}

  async get(projectId: string, callId: string): Promise<CallRecord> {
    const record = await this.gate.findRecordById(projectId, callId);
    if (!record) throw new AppError("not_found", `no call ${callId} in this project`);
    return record;
  }

  async evict(projectId: string, callId: string, reason: string, actor: Actor): Promise<CallRecord> {
    const record = await this.get(projectId, callId);
    const now = this.clock();
    if (leaseIsLive(record, now)) {
      throw new AppError("invalid_state", `call ${callId} is running (its lease holds until ${new Date(record.leaseExpiresAt!).toISOString()}): wait for it`);
    }
    await this.requireNewestGeneration(record);
    // Released is the state the engine already re-executes from: the next begin claims attempt+1.
    const evicted: CallRecord = { ...record, state: "released", result: null, error: null, leaseExpiresAt: null, updatedAt: now, version: record.version + 1 };
    const detail = { key: record.key, tool: record.tool, previousState: record.state, previousResult: record.result, previousError: record.error, reason };
    return this.write(record, evicted, "evicted", "record.evicted", detail, actor, now);
  }

  async resolve(projectId: string, callId: string, input: ResolveInput, actor: Actor): Promise<CallRecord> {
    const record = await this.get(projectId, callId);
    if (isCompleted(record)) {
      throw new AppError("invalid_state", `call ${callId} already ${record.state}: evict it to run it again`);
    }
    const now = this.clock();
    const { policy } = await this.policies.forTool(projectId, record.tool);
    const succeeded = input.outcome === "succeeded";
    const resolved: CallRecord = {
      ...record,
      state: input.outcome,
      result: succeeded && input.result !== undefined ? JSON.stringify(redact(input.result, policy.redactFields)) : null,
      // What was found downstream is final: a failure resolved by hand is not retried by the engine.
      error: succeeded ? null : JSON.stringify({ message: input.error?.message ?? input.note, retryable: false }),
      completedAt: now,
      leaseExpiresAt: null,
      updatedAt: now,
      expiresAt: now + policy.ttlSeconds * 1000,
      version: record.version + 1,
    };
    const detail = { key: record.key, tool: record.tool, previousState: record.state, attempt: record.attempt, outcome: input.outcome, note: input.note };
    return this.write(record, resolved, `resolved_${input.outcome}`, "record.resolved", detail, actor, now);
  }

  /** Only the newest generation decides what the next begin does; evicting an older one would do nothing. */
  private async requireNewestGeneration(record: CallRecord): Promise<void> {
    const baseKey = baseKeyOf(record.key);
    const base = baseKey === record.key ? record : await this.gate.findRecordByKey(record.projectId, baseKey);
    const newest = generationKey(baseKey, base?.generation ?? 1);
    if (newest !== record.key) {
      throw new AppError("invalid_state", `call ${record.id} is an older generation of its key; the newest is generation ${base?.generation}`);
    }
  }

  private async write(
    before: CallRecord,
    after: CallRecord,
    decision: string,
    action: string,
    detail: Record<string, unknown>,
    actor: Actor,
    now: number,
  ): Promise<CallRecord> {
    const event = recordEvent(after, {
      type: "operator",
      decision,
      startedAt: performance.now(),
      at: now,
      policyVersion: before.policyVersion,
      detail: { by: actor.label, ...("reason" in detail ? { reason: detail.reason } : { note: detail.note }) },
    });
    const audit = auditEntry(actor, before.projectId, action, { type: "call", id: before.id }, detail, now);
    if (!(await this.store.updateRecordByOperator(after, before.version, event, audit))) {
      throw new AppError("version_conflict", `call ${before.id} changed meanwhile: look at it again, then retry`);
    }
    return after;
  }
}
