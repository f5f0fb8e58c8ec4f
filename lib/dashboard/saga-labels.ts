import type { RUN_STATES, STEP_STATUSES } from "../contract/sagas";
import type { Tone } from "./ledger-labels";

/** Sagas on the dashboard: one tone per run state and per compensation step status. */
export type SagaRunState = (typeof RUN_STATES)[number];
export type SagaStepStatus = (typeof STEP_STATUSES)[number];

const RUN_TONES: Record<SagaRunState, Tone> = { running: "neutral", compensating: "warn", compensated: "ok", compensation_failed: "danger" };
const STEP_TONES: Record<SagaStepStatus, Tone> = { pending: "neutral", running: "exec", compensated: "ok", failed: "danger", resolved: "ok" };

export const toneOfRunState = (state: SagaRunState): Tone => RUN_TONES[state];
export const toneOfStepStatus = (status: SagaStepStatus): Tone => STEP_TONES[status];

/** "compensation failed", "resolved by hand", … */
export function labelOfStepStatus(status: SagaStepStatus): string {
  return status === "resolved" ? "resolved by hand" : `undo ${status}`;
}

export const labelOfRunState = (state: SagaRunState): string => state.replace(/_/g, " ");
