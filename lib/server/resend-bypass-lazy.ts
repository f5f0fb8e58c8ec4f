import type { BypassGate } from "./resend-bypass";

/**
 * The gate's bypass gate, resolved on first use: the operators' services are built from the gate
 * (operator-context.ts), so the gate must not build them eagerly. A dynamic import keeps the two
 * modules free of an import cycle; it resolves once and is cached.
 */
export const lazyBypassGate: BypassGate = {
  authorize: async (input) => (await import("./operator-context")).getOperators().bypass.authorize(input),
  claimed: async (projectId, requestId, callId) =>
    (await import("./operator-context")).getOperators().bypass.claimed(projectId, requestId, callId),
};
