/** Where an HTTP request's idempotency comes from: the caller's key, or an agent runtime's run structure. */
export type KeySource =
  | { kind: "key"; key: string }
  | { kind: "run"; runId: string; stepId?: string; scope?: string; agentId?: string }
  | { kind: "missing" }
  | { kind: "invalid"; detail: string };

export type HeaderReader = (name: string) => string | null | undefined;

export const RUN_HEADERS = { runId: "idemgate-run-id", stepId: "idemgate-step-id", scope: "idemgate-scope", agentId: "idemgate-agent-id" } as const;

/**
 * A completed key runs once more only on request, with an operator's approval where the policy
 * asks for one: the header's value is the reason the operator reads.
 */
export const RESEND_HEADER = "idemgate-resend";
const MAX_REASON = 2_000;

/** The resend reason, null without the header, or "invalid" when it is empty or too long. */
export function readResendReason(header: HeaderReader): string | null | "invalid" {
  const raw = header(RESEND_HEADER);
  if (raw === null || raw === undefined) return null;
  const reason = raw.trim();
  return reason.length === 0 || reason.length > MAX_REASON ? "invalid" : reason;
}

/** The gate's ids are at most 200 characters; a longer key could not be told apart from its prefix. */
const MAX_KEY = 200;
const PRINTABLE = /^[\x20-\x7e]+$/;

/**
 * The draft makes Idempotency-Key a Structured Field string (`"8e03978e-…"`); bare tokens, which
 * many clients send, are accepted too.
 */
export function parseIdempotencyKey(raw: string): string | null {
  const text = raw.trim();
  const quoted = /^"((?:[^"\\]|\\["\\])*)"$/.exec(text);
  const key = quoted ? quoted[1]!.replace(/\\(["\\])/g, "$1") : text;
  if (key.length === 0 || key.length > MAX_KEY || !PRINTABLE.test(key)) return null;
  return key;
}

/** The caller's key wins; otherwise Idemgate-Run-Id (with optional step and scope) keys the request under the step strategy. */
export function readKeySource(header: HeaderReader, keyHeader = "idempotency-key"): KeySource {
  const raw = header(keyHeader);
  if (raw !== null && raw !== undefined) {
    const key = parseIdempotencyKey(raw);
    return key ? { kind: "key", key } : { kind: "invalid", detail: `${keyHeader} must be a string of 1 to ${MAX_KEY} printable ASCII characters` };
  }
  // Too long is refused, never cut: two ids alike for their first 200 characters would be one run.
  const ids: Partial<Record<keyof typeof RUN_HEADERS, string>> = {};
  for (const [field, name] of Object.entries(RUN_HEADERS) as [keyof typeof RUN_HEADERS, string][]) {
    const value = header(name)?.trim();
    if (!value) continue;
    if (value.length > MAX_KEY) return { kind: "invalid", detail: `${name} must be at most ${MAX_KEY} characters` };
    ids[field] = value;
  }
  const { runId, ...rest } = ids;
  if (!runId) return { kind: "missing" };
  return { kind: "run", runId, ...rest };
}
