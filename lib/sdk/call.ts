import type { ExecuteDecisionSchema, VerifyDecisionSchema } from "../contract/v1";
import type { z } from "zod";
import { type AcceptedOperation, isAccepted } from "./accepted";
import { runWithToolCall } from "./context";
import { GateError, LeaseLostError, type ToolErrorInfo } from "./errors";
import { startHeartbeat } from "./heartbeat";
import { exchangePreview, isPreviewTransport } from "./preview";
import { asStored, loopWarningOf, resultFromDecision } from "./results";
import { DEFAULT_TOOL_RETRY, backoffDelay, sleep, withBackoff, withGateRetry } from "./retry";
import type { Backoff, BeginRequest, CallDeps, CallOptions, CallResult, CompensationSpec, CompleteRequest, Cost, Exec, ExecContext, GateTransport } from "./types";

type Claim = z.infer<typeof ExecuteDecisionSchema> | z.infer<typeof VerifyDecisionSchema>;
type Attempt<T> = { kind: "done"; result: CallResult<T> } | { kind: "retry"; error: ToolErrorInfo };
type Outcome<T> =
  | { ok: true; value: T; verified: boolean; operation?: AcceptedOperation; notStorable?: string }
  | { ok: false; error: ToolErrorInfo; unknown?: boolean };

/**
 * begin → (wait out in_progress) → run the tool only on execute/verify → complete; retryable tool
 * failures go round again as a new attempt on the same key. Everything but an unreachable gate or an
 * abort ends in a typed CallResult.
 */
export async function runCall<T>(deps: CallDeps, callRequest: BeginRequest, exec: Exec<T>, options: CallOptions<T> = {}): Promise<CallResult<T>> {
  let request = callRequest;
  let previewed = false;
  let previewId = options.previewId;
  let tokenRetried = false;
  let redeemed = false;
  const started = Date.now();
  const maxWaitMs = options.maxWaitMs ?? deps.maxWaitMs;
  let advice: Backoff = DEFAULT_TOOL_RETRY;
  let waits = 0;
  let failures = 0;

  for (;;) {
    const remaining = Math.max(0, maxWaitMs - (Date.now() - started));
    const waitMs = Math.min(deps.waitMs, remaining);
    const begin: BeginRequest = waitMs > 0 ? { ...request, waitMs } : request;
    const sentAt = Date.now();
    let decision;
    try {
      decision = await withGateRetry(() => deps.transport.begin(begin, options.signal), deps.gateRetry, options.signal);
    } catch (error) {
      if (request.previewToken === undefined || tokenRetried || !isStalePreviewToken(error)) throw error;
      // Another holder of the same approved preview (a second process resuming the same paused run)
      // read a newer token or spent it: ask again without ours, which replays what the other ran.
      tokenRetried = true;
      const { previewToken: _stale, ...rest } = request;
      request = rest;
      previewed = false;
      previewId = options.previewId;
      continue;
    }

    if (decision.decision === "in_progress") {
      const waited = Date.now() - started;
      if (waited >= maxWaitMs) {
        return { ok: false, status: "in_progress", callId: decision.callId, key: decision.key, waitedMs: waited };
      }
      // A long poll that ran its course already waited; a quick answer gets the advised backoff.
      const longPolled = waitMs > 0 && Date.now() - sentAt >= waitMs * 0.8;
      const pause = longPolled ? 0 : Math.min(decision.retryAfterMs, backoffDelay(decision.retry, waits));
      waits++;
      await sleep(Math.min(pause, maxWaitMs - waited), options.signal);
      continue;
    }
    if (decision.decision === "preview_required" && (options.preview || previewId !== undefined) && !previewed && isPreviewTransport(deps.transport)) {
      previewed = true;
      // A preview posted earlier (an adapter's paused run) is waited on once; a later round posts afresh.
      const exchanged = await exchangePreview(deps, deps.transport, request, { ...options, previewId });
      previewId = undefined;
      if (!exchanged.ok) return exchanged.result;
      if (exchanged.token !== null) request = { ...request, previewToken: exchanged.token };
      continue;
    }
    if (decision.decision === "approval_required" && request.bypass !== undefined && !redeemed && deps.transport.resendToken) {
      // Asked again after an operator approved: the approved request's single-use token runs it
      // once, under the key's next generation. Still pending (or denied): approval_required.
      redeemed = true;
      const requestId = decision.requestId;
      const token = await withGateRetry(() => deps.transport.resendToken!(requestId, options.signal), deps.gateRetry, options.signal);
      if (token !== null) {
        const { bypass: _asked, ...rest } = request;
        request = { ...rest, bypassToken: token };
        continue;
      }
    }
    if (decision.decision !== "execute" && decision.decision !== "verify") return resultFromDecision<T>(decision);

    if (decision.decision === "execute") advice = decision.retry;
    if (request.bypassToken !== undefined || request.bypass !== undefined) {
      // The resend is claimed: a retry after a transient failure continues on its generation
      // (a spent token would be refused, and asking again would file another request).
      const { bypassToken: _used, bypass: _asked, ...rest } = request;
      request = rest;
    }
    if (request.previewToken !== undefined) {
      // Spent on this attempt: a retry after a transient failure previews afresh.
      const { previewToken: _spent, ...rest } = request;
      request = rest;
      previewed = false;
    }
    const attempt = await runAttempt(deps, decision, exec, options, request.args);
    if (attempt.kind === "done") return attempt.result;

    failures++;
    const toolRetry = options.toolRetry ?? deps.toolRetry;
    const policy = toolRetry === false ? undefined : withBackoff(advice, toolRetry);
    if (!policy || failures >= policy.maxAttempts) {
      return { ok: false, status: "failed", callId: decision.callId, key: decision.key, error: attempt.error, replayed: false, attempt: decision.attempt };
    }
    const advised = (attempt.error.retryAfterSeconds ?? 0) * 1000;
    await sleep(Math.max(backoffDelay(policy, failures - 1), advised), options.signal);
  }
}

async function runAttempt<T>(deps: CallDeps, claim: Claim, exec: Exec<T>, options: CallOptions<T>, args: unknown): Promise<Attempt<T>> {
  let checkOutcome: "found" | "not_found" | "unknown" | undefined;
  const ref = { callId: claim.callId, key: claim.key, ...loopWarningOf(claim) };
  const controller = new AbortController();
  const onCallerAbort = () => controller.abort(options.signal!.reason);
  if (options.signal?.aborted) onCallerAbort();
  options.signal?.addEventListener("abort", onCallerAbort, { once: true });

  let lost = false;
  const leaseSeconds = options.leaseSeconds ?? deps.leaseSeconds;
  let leaseExpiresAt = Date.parse(claim.leaseExpiresAt);
  if (leaseSeconds !== undefined) {
    // Our own lease length: the first beat sets it before the tool starts, later beats keep it.
    try {
      const beat = await withGateRetry(
        () => deps.transport.heartbeat(claim.callId, { leaseToken: claim.leaseToken, extendSeconds: leaseSeconds }),
        deps.gateRetry,
      );
      const granted = beat.leaseExpiresAt as string | null;
      if (granted !== null) leaseExpiresAt = Date.parse(granted);
    } catch (error) {
      if (isLeaseLost(error)) return { kind: "done", result: { ok: false, status: "lease_lost", ...ref, executed: false } };
      // Unreachable for now: the policy's (longer) lease still holds.
    }
  }
  const heartbeat = deps.heartbeat
    ? startHeartbeat({
        transport: deps.transport,
        callId: claim.callId,
        leaseToken: claim.leaseToken,
        leaseExpiresAt,
        leaseSeconds,
        retry: deps.gateRetry,
        onLost: () => {
          lost = true;
          controller.abort(new LeaseLostError(claim.callId));
        },
      })
    : undefined;

  let reported: Cost | undefined;
  const ctx: ExecContext = {
    reportCost: (cost) => {
      reported = { amount: cost.amount, currency: cost.currency };
    },
    idempotencyKey: claim.key,
    attempt: claim.attempt,
    signal: controller.signal,
    callId: claim.callId,
    recovered: claim.decision === "execute" ? claim.recovered : true,
    ...(claim.decision === "execute" && claim.replayable !== undefined ? { replayable: claim.replayable } : {}),
    ...(claim.decision === "execute" && claim.keepHeaders !== undefined ? { keepHeaders: claim.keepHeaders } : {}),
  };
  let outcome: Outcome<T>;
  try {
    outcome = await runWithToolCall(ctx, async (): Promise<Outcome<T>> => {
      if (claim.decision === "verify" && options.check) {
        const checked = await options.check(claim.key, args, ctx);
        checkOutcome = checked.status;
        if (checked.status === "found") return { ok: true, value: asStored(checked.result), verified: true };
        if (checked.status === "unknown") return { ok: false, error: { message: checked.reason ?? "the status check could not tell", retryable: false }, unknown: true };
      }
      if (claim.decision === "verify" && options.verify) {
        const found = await options.verify(ctx);
        if (found.found) return { ok: true, value: asStored(found.result), verified: true };
      }
      const value = await exec(ctx);
      return { ok: true, value, verified: false, ...(isAccepted(value) ? { operation: value } : {}) };
    });
    if (outcome.ok && !outcome.verified) outcome = storedOutcome(outcome);
  } catch (error) {
    outcome = { ok: false, error: (options.classifyError ?? deps.classifyError)(error) };
  } finally {
    await heartbeat?.stop();
    options.signal?.removeEventListener("abort", onCallerAbort);
  }

  const lostResult = (): Attempt<T> => ({
    kind: "done",
    result: { ok: false, status: "lease_lost", ...ref, executed: true, ...(outcome.ok ? { value: outcome.value } : { error: outcome.error }) },
  });
  if (lost) return lostResult();
  if (!outcome.ok && outcome.unknown) {
    // Neither run it (it may have happened) nor record an outcome (none is known): the ledger says the
    // check could not tell, the lease lapses, and the call waits in the operators' queue for someone to
    // resolve it. The report is best effort: the result is the same whether it landed or not.
    await deps.transport
      .reportCheck?.(claim.callId, { leaseToken: claim.leaseToken, outcome: "unknown", reason: outcome.error.message.slice(0, 2_000) })
      .catch(() => undefined);
    return { kind: "done", result: { ok: false, status: "unknown_outcome", ...ref, reason: outcome.error.message } };
  }

  const checked = checkOutcome === "found" || checkOutcome === "not_found" ? { check: checkOutcome } : {};
  // A value found by verify ran on an earlier attempt, whose cost is that attempt's to report.
  const cost = outcome.ok && !outcome.verified ? (costOf(outcome.value, options) ?? reported) : outcome.ok ? undefined : reported;
  const spent = cost ? { cost } : {};
  const body: CompleteRequest = !outcome.ok
    ? { leaseToken: claim.leaseToken, outcome: "failed", error: outcome.error, ...checked, ...spent }
    : outcome.operation
      ? { leaseToken: claim.leaseToken, outcome: "accepted", ...outcome.operation, ...spent }
      : outcome.notStorable !== undefined
        ? { leaseToken: claim.leaseToken, outcome: "succeeded", ...spent }
        : { leaseToken: claim.leaseToken, outcome: "succeeded", result: outcome.value, ...compensationOf(outcome.value, options), ...checked, ...spent };
  let recorded = true;
  try {
    await withGateRetry(() => deps.transport.complete(claim.callId, body), deps.gateRetry);
  } catch (error) {
    if (isLeaseLost(error)) return lostResult();
    if (outcome.ok && "result" in body && isResultRefused(error)) {
      // The tool ran and the gate will never take this value: record the success without it, or the
      // lease lapses and the next begin runs the finished tool again.
      outcome = { ...outcome, notStorable: (error as GateError).message };
      recorded = await completeWithoutResult(deps, claim, cost);
    } else {
      // The gate did not take the outcome: its lease will lapse and a later attempt runs again with the
      // same key, which the tool's downstream idempotency must absorb. The value is still the agent's.
      recorded = false;
    }
  }

  if (!outcome.ok) {
    if (outcome.error.retryable) return { kind: "retry", error: outcome.error };
    return { kind: "done", result: { ok: false, status: "failed", ...ref, error: outcome.error, replayed: false, attempt: claim.attempt } };
  }
  if (outcome.operation) {
    return { kind: "done", result: { ok: true, status: "accepted", ...ref, value: outcome.value, ...outcome.operation, replayed: false } };
  }
  if (outcome.verified) return { kind: "done", result: { ok: true, status: "verified", ...ref, value: outcome.value, attempt: claim.attempt } };
  return {
    kind: "done",
    result: {
      ok: true,
      status: "executed",
      ...ref,
      value: outcome.value,
      attempt: claim.attempt,
      recovered: ctx.recovered,
      recorded,
      ...(outcome.notStorable !== undefined ? { resultNotStored: outcome.notStorable } : {}),
    },
  };
}

/** The value as a replay will return it; a value JSON cannot carry is kept as is and completed without it. */
function storedOutcome<T>(outcome: Extract<Outcome<T>, { ok: true }>): Outcome<T> {
  try {
    return { ...outcome, value: asStored(outcome.value) };
  } catch (error) {
    return { ...outcome, notStorable: `the result is not JSON: ${error instanceof Error ? error.message : String(error)}` };
  }
}

async function completeWithoutResult(deps: CallDeps, claim: Claim, cost: Cost | undefined): Promise<boolean> {
  try {
    await withGateRetry(() => deps.transport.complete(claim.callId, { leaseToken: claim.leaseToken, outcome: "succeeded", ...(cost ? { cost } : {}) }), deps.gateRetry);
    return true;
  } catch {
    return false;
  }
}

/** The gate refused the result itself (its shape or size), not the call: retrying the same body cannot help. */
function isResultRefused(error: unknown): boolean {
  return (
    error instanceof GateError &&
    !error.retryable &&
    (error.code === "invalid_json" || error.code === "invalid_input" || error.code === "payload_too_large")
  );
}

/** The tool's own reckoning of what a success cost; a throwing reckoner costs the call nothing it did not report. */
function costOf<T>(value: T, options: CallOptions<T>): Cost | undefined {
  if (!options.cost) return undefined;
  try {
    return options.cost(value);
  } catch {
    return undefined;
  }
}

function compensationOf<T>(value: T, options: CallOptions<T>): { compensation?: CompensationSpec } {
  return options.compensate ? { compensation: options.compensate(value) } : {};
}

/** The preview token was replaced by a newer read, spent, or timed out: the preview may still stand. */
function isStalePreviewToken(error: unknown): boolean {
  return error instanceof GateError && (error.code === "preview_token_invalid" || error.code === "preview_token_used" || error.code === "preview_token_expired");
}

function isLeaseLost(error: unknown): boolean {
  return error instanceof GateError && (error.code === "lease_lost" || error.code === "not_found");
}
