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

/** An sf-string (RFC 8941 §3.3.3): printable ASCII in quotes, `"` and `\` escaped, nothing else escaped. */
const SF_STRING = /^"((?:[\x20\x21\x23-\x5b\x5d-\x7e]|\\["\\])*)"/;
/** A bare key (the documented leniency): what many clients send, a UUID or a token, unquoted. */
const BARE = /^[!#$%&'*+\-.^_`|~0-9A-Za-z:/]+/;
/** Other Structured Field items, refused: integer, decimal, byte sequence, boolean (RFC 8941 §3.3). */
const OTHER_ITEM = /^(?:-?\d{1,15}|-?\d{1,12}\.\d{1,3}|:[A-Za-z0-9+/=]*:|\?[01])$/;
/** An item's parameters (`;name=value`), ignored as RFC 8941 lets a recipient do. */
const PARAMETERS = /^(?:\s*;\s*[a-z*][a-z0-9_.*-]*(?:=(?:"(?:[^"\\]|\\.)*"|[^;,\s]+))?)*/;

/** One member of the field: an sf-string or a bare key, then parameters; null when it is anything else. */
function parseMember(text: string): string | null {
  const quoted = SF_STRING.exec(text);
  let key: string;
  let rest: string;
  if (quoted) {
    key = quoted[1]!.replace(/\\(["\\])/g, "$1");
    rest = text.slice(quoted[0].length);
  } else {
    const bare = BARE.exec(text);
    if (!bare || OTHER_ITEM.test(bare[0])) return null;
    key = bare[0];
    rest = text.slice(bare[0].length);
  }
  const params = PARAMETERS.exec(rest)![0];
  if (rest.slice(params.length).trim() !== "") return null;
  return key.length === 0 || key.length > MAX_KEY ? null : key;
}

/** The field's members, split at commas outside quoted strings (two fields arrive joined by `, `). */
function members(text: string): string[] {
  const out: string[] = [];
  let current = "";
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const char = text[i]!;
    if (quoted && char === "\\") {
      current += char + (text[i + 1] ?? "");
      i++;
      continue;
    }
    if (char === '"') quoted = !quoted;
    if (char === "," && !quoted) {
      out.push(current.trim());
      current = "";
      continue;
    }
    current += char;
  }
  out.push(current.trim());
  return out;
}

/**
 * The draft makes Idempotency-Key a Structured Field string (`"8e03978e-…"`); bare keys (a UUID,
 * a token), which many clients send, are accepted too. Anything else is refused (null): another
 * structured type (`123`, `?1`, `:Ynl0ZXM=:`), a malformed string (`"abc`), or two fields with
 * different values (`"a", "b"`: which one the client meant cannot be known). Two fields with one
 * value are that value.
 */
export function parseIdempotencyKey(raw: string): string | null {
  const keys = members(raw.trim()).map(parseMember);
  const [first] = keys;
  if (first === null || first === undefined || keys.some((key) => key !== first)) return null;
  return PRINTABLE.test(first) ? first : null;
}

/** The caller's key wins; otherwise Idemgate-Run-Id (with optional step and scope) keys the request under the step strategy. */
export function readKeySource(header: HeaderReader, keyHeader = "idempotency-key"): KeySource {
  const raw = header(keyHeader);
  if (raw !== null && raw !== undefined) {
    const key = parseIdempotencyKey(raw);
    return key
      ? { kind: "key", key }
      : { kind: "invalid", detail: `${keyHeader} must be one sf-string ("…") of 1 to ${MAX_KEY} printable ASCII characters (or such a key unquoted, without spaces or commas); another structured type, a malformed string or two different keys is refused` };
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
