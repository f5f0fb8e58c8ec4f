import unhomoglyph from "unhomoglyph";

/**
 * Control characters, format characters (zero-width space and joiners, BOM, bidi overrides) and
 * line/paragraph separators: invisible in a dashboard, so a tool name holding one looks like
 * another tool while it skips that tool's policy.
 */
const INVISIBLE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/u;

export function hasInvisibleCharacters(text: string): boolean {
  return INVISIBLE.test(text);
}

const FOLD_CACHE_LIMIT = 10_000;
const folded = new Map<string, string>();

/**
 * A field name as a rule matches it: compatibility-normalised, case-folded and with confusable
 * letters mapped to their Latin look-alike, so `Password`, `PASSWORD` and `pаssword` (Cyrillic а)
 * are all `password`. Cached: argument field names repeat from call to call.
 */
export function foldFieldName(name: string): string {
  let value = folded.get(name);
  if (value === undefined) {
    value = unhomoglyph(name.normalize("NFKC").toLowerCase()).toLowerCase();
    if (folded.size >= FOLD_CACHE_LIMIT) folded.clear();
    folded.set(name, value);
  }
  return value;
}

/** A rule set of field names, matched the way foldFieldName spells them. */
export function fieldMatcher(fields: readonly string[]): (name: string) => boolean {
  if (fields.length === 0) return () => false;
  const set = new Set(fields.map(foldFieldName));
  return (name) => set.has(foldFieldName(name));
}

/** The identifiers of a call that keys and policies are derived from. */
interface CallIds {
  tool: string;
  runId: string;
  stepId?: string | null;
  scope?: string | null;
  toolCallId?: string | null;
  agentId?: string | null;
}

/** The wire's bound on a tool name and on every id (contract/v1.ts). */
export const MAX_ID_LENGTH = 200;

/**
 * The first identifier of a call the wire would refuse: empty, longer than MAX_ID_LENGTH, or
 * holding an invisible character (contract/tool-name.ts). In-process callers (the MCP and HTTP
 * gateways, the SDK's in-process transport) reach the service without the wire's schema, so the
 * service checks them with this.
 */
export function badIdField(call: CallIds): { field: keyof CallIds; problem: "length" | "invisible" } | null {
  for (const field of ["tool", "runId", "stepId", "scope", "toolCallId", "agentId"] as const) {
    const value = call[field];
    if (typeof value !== "string") continue;
    if (value.length === 0 || value.length > MAX_ID_LENGTH) return { field, problem: "length" };
    if (hasInvisibleCharacters(value)) return { field, problem: "invisible" };
  }
  return null;
}

/** The call with its identifiers in NFC, before a policy is looked up or a key derived. */
export function normalizeCallIds<T extends CallIds>(call: T): T {
  const nfc = (text: string | null | undefined) => (typeof text === "string" ? text.normalize("NFC") : text);
  return {
    ...call,
    tool: call.tool.normalize("NFC"),
    runId: call.runId.normalize("NFC"),
    stepId: nfc(call.stepId),
    scope: nfc(call.scope),
    toolCallId: nfc(call.toolCallId),
    agentId: nfc(call.agentId),
  };
}
