import { type CallRecord, type Compensation, type ErrorInfo, parseError } from "./record";

/**
 * Sagas (DESIGN.md "Additions"): when a run aborts, every succeeded call that registered a
 * compensation is undone, newest completion first. Each undo is a gated call of its own under
 * `<key>:compensate`, so the run's records alone say how far the plan got: this planner reads them
 * and never needs state of its own, and two runners reading the same records agree.
 */
export type RunState = "running" | "compensating" | "compensated" | "compensation_failed";
/** resolved: an operator recorded by hand that the effect was undone (or needs no undoing). */
export type StepStatus = "pending" | "running" | "compensated" | "failed" | "resolved";

export const COMPENSATE_SUFFIX = ":compensate";

export function compensationKey(key: string): string {
  return `${key}${COMPENSATE_SUFFIX}`;
}

export function isCompensationKey(key: string): boolean {
  return key.endsWith(COMPENSATE_SUFFIX);
}

export interface CompensationStep {
  /** The call being undone. */
  callId: string;
  key: string;
  tool: string;
  stepId: string | null;
  completedAt: number;
  compensation: Compensation;
  compensationKey: string;
  status: StepStatus;
  /** The compensation's own record, once begun. */
  compensationCallId: string | null;
  attempts: number;
  error?: ErrorInfo;
}

export interface CompensationPlan {
  state: RunState;
  /** In the order they run: reverse completion order. */
  steps: CompensationStep[];
  /** The step a runner works on now; null when nothing is left, or a failed step stops the plan. */
  next: CompensationStep | null;
}

/** What an operator's "resolved by hand" writes as the compensation's result. */
export interface ResolvedByHand {
  resolvedByHand: { by: string; note: string };
}

export function planCompensation(aborted: boolean, records: readonly CallRecord[]): CompensationPlan {
  const byKey = new Map(records.map((record) => [record.key, record]));
  const steps = records
    .filter((record) => record.state === "succeeded" && record.compensation !== null && !isCompensationKey(record.key))
    .sort((a, b) => (b.completedAt ?? 0) - (a.completedAt ?? 0) || (a.id < b.id ? 1 : -1))
    .map((record) => toStep(record, byKey.get(compensationKey(record.key)) ?? null));
  if (!aborted) return { state: "running", steps, next: null };
  const open = steps.find((step) => !isStepDone(step)) ?? null;
  if (!open) return { state: "compensated", steps, next: null };
  if (open.status === "failed") return { state: "compensation_failed", steps, next: null };
  return { state: "compensating", steps, next: open };
}

function toStep(record: CallRecord, undo: CallRecord | null): CompensationStep {
  const key = compensationKey(record.key);
  const error = undo ? parseError(undo.error) : undefined;
  return {
    callId: record.id,
    key: record.key,
    tool: record.tool,
    stepId: record.stepId,
    completedAt: record.completedAt ?? record.updatedAt,
    compensation: JSON.parse(record.compensation!) as Compensation,
    compensationKey: key,
    status: statusOf(undo),
    compensationCallId: undo?.id ?? null,
    attempts: undo?.attempt ?? 0,
    ...(error && undo?.state === "failed" ? { error } : {}),
  };
}

function statusOf(undo: CallRecord | null): StepStatus {
  if (!undo) return "pending";
  switch (undo.state) {
    case "succeeded":
      return isResolvedByHand(undo.result) ? "resolved" : "compensated";
    case "failed":
      return "failed";
    case "in_progress":
    case "accepted":
      return "running";
    case "released":
      return "pending";
  }
}

function isResolvedByHand(result: string | null): boolean {
  if (result === null) return false;
  const parsed = JSON.parse(result) as Partial<ResolvedByHand> | null;
  return typeof parsed === "object" && parsed !== null && parsed.resolvedByHand !== undefined;
}

/** What an operator may do with a step: retry an undo that failed, resolve by hand any step not done. */
export type StepAction = "retry" | "resolve";

export function isStepDone(step: Pick<CompensationStep, "status">): boolean {
  return step.status === "compensated" || step.status === "resolved";
}

/**
 * The operators' actions on a step (the run page and the queue show them): a step that is not done
 * always has one, so no plan is ever stuck: a failed undo can be retried (its record is released and
 * the next begin is one more attempt) or resolved by hand; a pending or running one resolved by hand.
 */
export function stepActions(step: Pick<CompensationStep, "status">): StepAction[] {
  if (isStepDone(step)) return [];
  return step.status === "failed" ? ["retry", "resolve"] : ["resolve"];
}

/**
 * Whether a runner may begin the compensation of `callId` now: only the plan's next step (or one
 * already begun, so its runner can finish it), which keeps the plan in order however many run it.
 */
export function mayBeginCompensation(plan: CompensationPlan, callId: string): { ok: true; step: CompensationStep } | { ok: false; reason: string } {
  const step = plan.steps.find((s) => s.callId === callId);
  if (!step) return { ok: false, reason: `call ${callId} has no compensation in this run` };
  if (plan.state === "running") return { ok: false, reason: "the run is not aborted: abort it first" };
  if (step.compensationCallId !== null) return { ok: true, step };
  if (plan.next?.callId !== callId) return { ok: false, reason: `compensations run in order: ${plan.next ? `call ${plan.next.callId} first` : "the plan is stopped"}` };
  return { ok: true, step };
}
