import { canonicalize } from "./canonical";
import type { ArgsFingerprinter } from "./fingerprint";
import { deriveKeyDigest } from "./keys";
import type { ToolPolicy, KeyStrategy } from "./policy";
import { redact } from "./redact";
import { scopeFromArgs } from "./scope-from";

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
  /** A key the gate derived itself (a compensation's `<key>:compensate`): used as is. Never from the wire. */
  derivedKey?: string;
}

export interface PreparedCall extends BeginCall {
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
  const scope = call.scope ?? scopeFromArgs(call.args, policy.scopeFrom);
  const argsText = call.args === undefined ? null : JSON.stringify(redact(call.args, policy.redactFields));
  const prepared = { ...call, scope, strategy: policy.keyStrategy, argsFingerprint, legacyArgsFingerprint, argsText };
  if (call.derivedKey !== undefined) return { ...prepared, key: call.derivedKey, legacyKey: null };
  // A digest of the args alone would let anyone who reads the key test guesses of a redacted value.
  const { digest, ofArgs } = deriveKeyDigest(policy.keyStrategy, { ...call, scope, canonicalArgs });
  return ofArgs ? { ...prepared, key: fingerprint.argsKey(digest), legacyKey: digest } : { ...prepared, key: digest, legacyKey: null };
}
