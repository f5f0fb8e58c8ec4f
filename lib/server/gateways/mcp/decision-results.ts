import type { BeginDecision } from "../../../core/record";
import { META } from "./call-identity";

/** A tools/call result as the SDK types it, kept loose: upstream results pass through unchanged. */
export interface ToolResult {
  content: unknown[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
  _meta?: Record<string, unknown>;
  [extra: string]: unknown;
}

type Keyed = { decision: string; callId?: string; key?: string };

function gateMeta(decision: Keyed, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    [META.decision]: decision.decision,
    ...(decision.callId ? { [META.callId]: decision.callId } : {}),
    ...(decision.key ? { [META.key]: decision.key } : {}),
    ...extra,
  };
}

/** The result plus the gate's `_meta` (decision, callId, key); everything else is left as it was. */
export function withGateMeta(result: ToolResult, decision: Keyed, extra: Record<string, unknown> = {}): ToolResult {
  return { ...result, _meta: { ...(result._meta ?? {}), ...gateMeta(decision, extra) } };
}

/** An isError result whose text tells the model what happened and what to do. */
export function gateError(text: string, decision: Keyed, extra: Record<string, unknown> = {}): ToolResult {
  return { content: [{ type: "text", text }], isError: true, _meta: gateMeta(decision, extra) };
}

const at = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, "Z");

/** What a stored outcome looks like to the client: the upstream's result unchanged, or its error. */
export function replayResult(decision: Extract<BeginDecision, { decision: "replay" }>, tool: string): ToolResult {
  const extra = { "idemgate/completedAt": at(decision.completedAt), "idemgate/replays": decision.replays };
  if (decision.status === "succeeded" && isToolResult(decision.result)) return withGateMeta(decision.result, decision, extra);
  if (decision.status === "succeeded") return withGateMeta({ content: [{ type: "text", text: JSON.stringify(decision.result ?? null) }] }, decision, extra);
  const message = decision.error?.message ?? "the tool failed";
  return gateError(
    `${tool} already ran at ${at(decision.completedAt)} and failed: ${message}. This is the recorded outcome of that call; it was not run again. Do not retry it unchanged.`,
    decision,
    extra,
  );
}

/** The decisions that are not an execution or a replay, in words for a model. */
export function refusalResult(decision: BeginDecision, tool: string): ToolResult {
  switch (decision.decision) {
    case "in_progress":
      return gateError(
        `${tool} is still running from an earlier identical request (call ${decision.callId}). It was not started again. Wait about ${Math.ceil(decision.retryAfterMs / 1000)} s and call it again with the same arguments to get its result.`,
        decision,
        { "idemgate/retryAfterMs": decision.retryAfterMs },
      );
    case "verify":
      return gateError(
        `An earlier attempt of ${tool} (call ${decision.callId}) ended without an answer, so it may or may not have taken effect. It was not run again. Check whether it happened (look it up with key ${decision.key}) before doing anything else; an operator can resolve it in Idemgate.`,
        decision,
      );
    case "refused":
      if ("reason" in decision) {
        return gateError(`${tool} was not run: ${decision.message}`, decision, { "idemgate/retryable": false });
      }
      return gateError(
        `${tool} was already ${decision.original.status === "succeeded" ? "done" : "tried and failed"} at ${at(decision.original.completedAt)} (call ${decision.callId}). Its policy refuses duplicates: do not retry.`,
        decision,
        { "idemgate/originalStatus": decision.original.status },
      );
    case "conflict":
      return gateError(
        `${tool} was already called for this step with different arguments (call ${decision.callId}); its policy rejects the change. Do not retry with new arguments; ask the user how to proceed.`,
        decision,
      );
    case "approval_required":
      return gateError(
        `Running ${tool} again needs an operator's approval (resend request ${decision.requestId}). It was not run. Tell the user it is waiting for an operator's approval in Idemgate; once approved, call it again the same way and it runs once.`,
        decision,
        { "idemgate/requestId": decision.requestId },
      );
    case "preview_required":
      return gateError(
        `${tool} was not run: its policy wants a preview${decision.mode === "approve" ? " approved by an operator" : ""} before it first runs. Tell the user; an operator can help in Idemgate.`,
        decision,
      );
    case "blocked":
      if (decision.reason === "budget_exceeded") {
        return gateError(`${tool} was not run: ${decision.message}`, decision, { "idemgate/reason": decision.reason });
      }
      return gateError(
        `Stopped: this run is repeating the same tool calls (${decision.pattern.join(" → ")}, ${decision.repeats} times). ${tool} was not run. Do not call it again; report what you have to the user.`,
        decision,
        { "idemgate/reason": decision.reason },
      );
    default:
      throw new Error(`not a refusal: ${decision.decision}`);
  }
}

/**
 * An execute the gate recovered from an expired lease, answered as `verify`: the earlier attempt
 * was sent upstream and never answered, so running it again could do it twice.
 */
export function unknownOutcomeResult(decision: { callId: string; key: string; attempt: number }, tool: string): ToolResult {
  return gateError(
    `An earlier attempt of ${tool} (call ${decision.callId}) was sent to the upstream but its answer was lost, so it may or may not have taken effect. It was not run again, and will not be until that is settled. Check whether it happened (look it up with key ${decision.key}) and tell the user; an operator resolves the call in Idemgate.`,
    { decision: "verify", callId: decision.callId, key: decision.key },
    { "idemgate/outcome": "unknown", "idemgate/retryable": false, "idemgate/attempt": decision.attempt },
  );
}

export function isToolResult(value: unknown): value is ToolResult {
  return typeof value === "object" && value !== null && Array.isArray((value as { content?: unknown }).content);
}

/** A failed result's text, as stored for replays (isError results become failures). */
export function resultText(result: ToolResult): string {
  const texts = result.content
    .map((block) => (typeof block === "object" && block !== null && (block as { type?: unknown }).type === "text" ? String((block as { text?: unknown }).text) : null))
    .filter((value): value is string => value !== null);
  return (texts.join("\n") || "the tool reported an error").slice(0, 4_000);
}

/** The client's `_meta` minus the gate's own keys, which the gateway sets itself. */
export function downstreamMeta(meta: Record<string, unknown> | undefined): Record<string, unknown> {
  return Object.fromEntries(Object.entries(meta ?? {}).filter(([key]) => !key.startsWith("idemgate/") && !["progressToken", "traceparent", "tracestate"].includes(key)));
}

/** An upstream result without any `idemgate/` keys of its own: only the gate sets those. */
export function stripGateMeta(result: ToolResult): ToolResult {
  if (!result._meta) return result;
  const meta = Object.fromEntries(Object.entries(result._meta).filter(([key]) => !key.startsWith("idemgate/")));
  const { _meta: _dropped, ...rest } = result;
  return Object.keys(meta).length > 0 ? { ...rest, _meta: meta } : rest;
}

const round1 = (ms: number) => Math.round(ms * 10) / 10;

/**
 * The gateway's share of a call, as a client can read it (`_meta["idemgate/timing"]`, the MCP side
 * of Server-Timing): the whole call as the gateway served it (from when the server took the
 * request), the upstream's part (0 when nothing was sent), and the rest, which is the gateway's own
 * (auth, body, session, the SDK's per-request server, the gate's decision and its writes).
 */
export function withTiming(result: ToolResult, totalMs: number, upstreamMs: number): ToolResult {
  const timing = { totalMs: round1(totalMs), upstreamMs: round1(upstreamMs), gatewayMs: round1(Math.max(0, totalMs - upstreamMs)) };
  return { ...result, _meta: { ...result._meta, "idemgate/timing": timing } };
}
