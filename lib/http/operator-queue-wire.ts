import type { OperatorQueue } from "../contract/operator-queue";
import type { OperatorQueueView } from "../server/operators/operator-queue";
import { toRunCompensation } from "./saga-wire";

const iso = (ms: number): string => new Date(ms).toISOString();

export function toOperatorQueue(view: OperatorQueueView): OperatorQueue {
  return {
    runs: view.runs.map(toRunCompensation),
    uncheckedCalls: view.uncheckedCalls.map(({ checkedAt, ...call }) => ({ ...call, checkedAt: iso(checkedAt) })),
    accepted: view.accepted.map((a) => ({
      callId: a.callId,
      tool: a.tool,
      key: a.key,
      runId: a.runId,
      operationId: a.operation.operationId,
      statusUrl: a.operation.statusUrl ?? null,
      acceptedAt: iso(a.acceptedAt),
      expiresAt: iso(a.expiresAt),
    })),
    verify: { ...view.verify, from: iso(view.verify.from), to: iso(view.verify.to) },
  };
}
