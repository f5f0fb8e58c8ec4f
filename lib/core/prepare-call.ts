import { DIGEST_FIELD, canonicalize, standInDigest } from "./canonical";
import type { ArgsFingerprinter } from "./fingerprint";
import { fieldMatcher } from "./identity";
import { deriveKeyDigest } from "./keys";
import type { ToolPolicy, KeyStrategy } from "./policy";
import { REDACTED, redact } from "./redact";
import { type ScopePart, joinScope, pointerTokens, scopePartsFromArgs } from "./scope-from";

/** A begin request as the gate sees it, after the wire format has been validated. */
export interface BeginCall {
  projectId: string;
  tool: string;
  runId: string;
  stepId: string | null;
  scope: string | null;
  toolCallId: string | null;
  agentId: string | null;
  args: unknown;
  /**
   * The run is the caller's anonymous one (an MCP call that named none): the record keeps its
   * outcome only for the policy's `mcp.runWindowSeconds` (policy.ts keepSeconds). Never from the wire.
   */
  runWindowed?: boolean;
  /** A key the gate derived itself (a compensation's `<key>:compensate`): used as is. Never from the wire. */
  derivedKey?: string;
}

export interface PreparedCall extends BeginCall {
  /**
   * As stored and shown: the scope the caller named, or the one the policy's `scopeFrom` derived,
   * with any value read from a redacted field masked (secretScope).
   */
  scope: string | null;
  key: string;
  /**
   * A key that is a digest of the args is keyed (fingerprint.ts); this is the unkeyed one older
   * versions derived, under which a record of theirs may still be stored: looked up, never stored.
   * Null when the key is not a digest of the args.
   */
  legacyKey: string | null;
  strategy: KeyStrategy;
  /** Keyed (fingerprint.ts): what is stored and shown. */
  argsFingerprint: string;
  /** The unkeyed fingerprint older versions stored: compared with stored ones, never stored. */
  legacyArgsFingerprint: string;
  /** Redacted args as stored on the record and in events. */
  argsText: string | null;
}

/** Everything about a call that depends only on the request and the tool's policy. */
export function prepareCall(call: BeginCall, policy: ToolPolicy, fingerprint: ArgsFingerprinter): PreparedCall {
  const canonicalArgs = canonicalize(call.args ?? {}, policy.ignoreFields);
  const { keyed: argsFingerprint, legacy: legacyArgsFingerprint } = fingerprint(canonicalArgs);
  // A scope the caller names wins; otherwise the policy may derive one from the args.
  const derived = (call.scope ?? null) === null ? secretScope(scopePartsFromArgs(call.args, policy.scopeFrom), policy, fingerprint) : null;
  const scope = call.scope ?? derived?.shown ?? null;
  const argsText = call.args === undefined ? null : storedArgs(call.args, policy, fingerprint);
  const prepared = { ...call, scope, strategy: policy.keyStrategy, argsFingerprint, legacyArgsFingerprint, argsText };
  if (call.derivedKey !== undefined) return { ...prepared, key: call.derivedKey, legacyKey: null };
  // The key is derived from the scope in clear, as older versions did (so their records are found
  // under legacyKey). A digest of the args, or of a redacted value, would let anyone who reads the
  // key test guesses of that value: such keys are keyed.
  const keyScope = call.scope ?? derived?.clear ?? null;
  const { digest, ofArgs } = deriveKeyDigest(policy.keyStrategy, { ...call, scope: keyScope, canonicalArgs });
  const ofSecret = derived?.secret === true && scopeInKey(policy.keyStrategy, call.stepId);
  return ofArgs || ofSecret ? { ...prepared, key: fingerprint.argsKey(digest), legacyKey: digest } : { ...prepared, key: digest, legacyKey: null };
}

/**
 * A derived scope in clear (for the key) and as shown (stored on the record, in answers and the
 * dashboard). A value read through a field the policy redacts is shown as `[REDACTED <tag>]`, the
 * tag keyed with the install's secret: calls on the same value still show the same scope, and a
 * reader cannot test guesses of the value against it (#16, the class of item 3).
 */
function secretScope(parts: ScopePart[] | null, policy: ToolPolicy, fingerprint: ArgsFingerprinter): { clear: string; shown: string; secret: boolean } | null {
  if (parts === null) return null;
  const clear = joinScope(parts);
  if (policy.redactFields.length === 0) return { clear, shown: clear, secret: false };
  const masked = fieldMatcher(policy.redactFields);
  let secret = false;
  const shown = parts.map((part) => {
    if (!pointerTokens(part.pointer).some(masked)) return part;
    secret = true;
    return { pointer: part.pointer, value: maskedAs(fingerprint.secretTag(part.value)) };
  });
  return secret ? { clear, shown: joinScope(shown), secret } : { clear, shown: clear, secret };
}

/**
 * The args as stored on the record and its events: redacted, and any digest stand-in
 * (canonical.ts) replaced by a tag keyed with the install's secret, so a reader of the record
 * cannot test guesses of the value the caller digested (a short form body, a PIN).
 */
function storedArgs(args: unknown, policy: ToolPolicy, fingerprint: ArgsFingerprinter): string {
  const redacted = redact(args, policy.redactFields);
  const text = JSON.stringify(redacted);
  // Most args hold no stand-in: one substring search instead of a second walk.
  if (!text.includes(JSON.stringify(DIGEST_FIELD))) return text;
  const walk = (item: unknown): unknown => {
    if (Array.isArray(item)) return item.map(walk);
    if (item === null || typeof item !== "object") return item;
    const entries = Object.entries(item as Record<string, unknown>);
    const digest = standInDigest(entries);
    if (digest !== null) return maskedAs(fingerprint.secretTag(digest));
    return Object.fromEntries(entries.map(([name, inner]) => [name, walk(inner)]));
  };
  return JSON.stringify(walk(redacted));
}

/** `[REDACTED <tag>]`: masked as redaction masks, with a keyed tag that tells values apart. */
function maskedAs(tag: string): string {
  return `${REDACTED.slice(0, -1)} ${tag}]`;
}

/** Whether the key strategy derives the key from the scope (keys.ts). */
function scopeInKey(strategy: KeyStrategy, stepId: string | null): boolean {
  return strategy === "scope" || (strategy === "step" && !stepId);
}
