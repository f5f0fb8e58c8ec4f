import { planComplete } from "../../core/plan-complete";
import type { CallRecord } from "../../core/record";
import { AppError } from "../app-error";

/**
 * Masking and serialising an outcome are the only steps of a complete that depend on the value sent.
 * Whatever they throw (a BigInt, a cycle or a toJSON that throws, from an in-process caller) is the
 * value's fault: a 400, so the caller stops resending a complete that can never succeed instead of
 * retrying until the lease lapses and the finished tool runs again.
 */
export function planStorableComplete(...args: Parameters<typeof planComplete>): ReturnType<typeof planComplete> {
  try {
    return planComplete(...args);
  } catch (error) {
    throw new AppError("invalid_input", `the outcome cannot be stored as JSON: ${error instanceof Error ? error.message : String(error)}`, {
      issues: [{ path: ["result"], message: "not storable as JSON", code: "unstorable" }],
    });
  }
}

export function leaseLost(record: CallRecord): AppError {
  return new AppError(
    "lease_lost",
    `this lease no longer owns call ${record.id} (now attempt ${record.attempt}, ${record.state}): the effect may have run twice`,
  );
}
