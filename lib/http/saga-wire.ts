import { stepActions } from "../core/plan-compensation";
import type { RunCompensation } from "../contract/sagas";
import type { RunSaga } from "../server/multistep/saga-service";

const iso = (ms: number): string => new Date(ms).toISOString();

export function toRunCompensation(saga: RunSaga): RunCompensation {
  return {
    runId: saga.runId,
    state: saga.plan.state,
    abort: saga.abort ? { reason: saga.abort.reason, abortedBy: saga.abort.abortedBy, abortedAt: iso(saga.abort.abortedAt) } : null,
    steps: saga.plan.steps.map((step) => ({
      callId: step.callId,
      key: step.key,
      tool: step.tool,
      stepId: step.stepId,
      completedAt: iso(step.completedAt),
      compensation: step.compensation,
      compensationKey: step.compensationKey,
      status: step.status,
      compensationCallId: step.compensationCallId,
      attempts: step.attempts,
      ...(step.error ? { error: step.error } : {}),
      actions: saga.abort ? stepActions(step) : [],
    })),
    nextCallId: saga.plan.next?.callId ?? null,
  };
}
