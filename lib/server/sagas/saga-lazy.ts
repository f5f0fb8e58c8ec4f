import type { GateServiceOptions } from "../gate-service";

/**
 * The gate's after-complete hook, resolved on first use: the saga service is built from the gate,
 * so the gate must not build it eagerly (the same dynamic import as resend-bypass-lazy.ts).
 */
export const lazyAfterComplete: NonNullable<GateServiceOptions["afterComplete"]> = async (record, policy, repeated) =>
  (await import("./saga-context")).getSagas().afterComplete(record, policy, repeated);
