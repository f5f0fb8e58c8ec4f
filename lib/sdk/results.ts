import type { BeginResponse, CallResult, LoopWarning } from "./types";

/** The loop warning a decision carries, on gates that send one. */
export function loopWarningOf(decision: object): { loopWarning?: LoopWarning } {
  const warning = (decision as { loopWarning?: LoopWarning }).loopWarning;
  return warning ? { loopWarning: warning } : {};
}

type Terminal = Exclude<BeginResponse, { decision: "execute" | "verify" | "in_progress" }>;

/** The decisions that end a call without running anything, as typed results. */
export function resultFromDecision<T>(decision: Terminal): CallResult<T> {
  const flagged = loopWarningOf(decision);
  switch (decision.decision) {
    case "replay":
      if (decision.status === "accepted") {
        const operation = { operationId: decision.operationId ?? "", ...(decision.statusUrl !== undefined ? { statusUrl: decision.statusUrl } : {}) };
        return { ok: true, status: "accepted", callId: decision.callId, key: decision.key, value: operation as T, ...operation, replayed: true, ...flagged };
      }
      if (decision.status === "failed") {
        return {
          ok: false,
          status: "failed",
          callId: decision.callId,
          key: decision.key,
          replayed: true,
          error: decision.error ?? { message: "the tool failed", retryable: false },
          ...flagged,
        };
      }
      return {
        ok: true,
        status: "replayed",
        callId: decision.callId,
        key: decision.key,
        value: (decision.result ?? null) as T,
        firstSeenAt: decision.firstSeenAt,
        completedAt: decision.completedAt,
        replays: decision.replays,
        argsMismatch: decision.argsMismatch,
        ...flagged,
      };
    case "refused":
      if (decision.reason === "run_aborted" || decision.original === undefined || decision.callId === undefined) {
        return { ok: false, status: "run_aborted", key: decision.key, message: decision.message ?? "stop: this run was aborted." };
      }
      return { ok: false, status: "refused", callId: decision.callId, key: decision.key, original: decision.original, ...flagged };
    case "conflict":
      return { ok: false, status: "conflict", callId: decision.callId, key: decision.key, ...flagged };
    case "approval_required":
      return { ok: false, status: "approval_required", requestId: decision.requestId };
    case "preview_required":
      return { ok: false, status: "preview_required", key: decision.key, mode: decision.mode };
    case "blocked":
      return {
        ok: false,
        status: "blocked",
        reason: decision.reason,
        pattern: decision.pattern,
        repeats: decision.repeats,
        ...(decision.message !== undefined ? { message: decision.message } : {}),
        ...(decision.budget !== undefined ? { budget: decision.budget } : {}),
      };
  }
}

/**
 * A sentence for the model about a call that did not produce a value: what happened and what it
 * should (not) do next. Successful results are shown as the tool's own value instead.
 */
export function describeForModel(result: CallResult<unknown>): string {
  switch (result.status) {
    case "executed":
    case "replayed":
    case "verified":
      return "The action completed.";
    case "accepted":
      return `The action was started and is still running (operation ${result.operationId}). Do not start it again; check its status later.`;
    case "failed":
      return `The action failed: ${result.error.message}${result.error.retryable ? " (temporary; it may be retried)" : ""}`;
    case "unknown_outcome":
      return "It is unknown whether an earlier attempt of this action took effect; a human is checking. Do not repeat it.";
    case "in_progress":
      return "This action is already in progress in another attempt. Do not start it again; check back later.";
    case "refused":
      return `This action was already performed (${result.original.status} at ${result.original.completedAt}). Do not repeat it.`;
    case "run_aborted":
      return result.message;
    case "conflict":
      return "This step was already performed with different arguments. Do not repeat it; ask the user if a change is needed.";
    case "lease_lost":
      return "This attempt lost its claim on the action to another attempt. Do not repeat it; check its status.";
    case "preview_required":
      return "This action needs a preview of its effect before it runs. Preview it first.";
    case "preview_denied":
      return `A human denied this action after seeing its preview${result.note ? `: ${result.note}` : ""}. Do not do it.`;
    case "preview_pending":
      return "This action waits for a human to approve its preview. Do not retry it now; check back later.";
    case "approval_required":
      return `Repeating this action needs human approval (request ${result.requestId}). Wait for it.`;
    case "blocked":
      if (result.reason === "budget_exceeded") return result.message ?? "stop: this run has spent its budget. Do not call more tools.";
      return `Stopped: the same calls repeated ${result.repeats} times (${result.pattern.join(" → ")}). Try a different approach or stop.`;
  }
}

/** JSON round trip: a fresh result has exactly the shape a replay of it will have. */
export function asStored<T>(value: T): T {
  return (value === undefined ? null : JSON.parse(JSON.stringify(value))) as T;
}
