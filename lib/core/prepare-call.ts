import { canonicalize } from "./canonical";
import type { ArgsFingerprinter } from "./fingerprint";
import { deriveKey } from "./keys";
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
  const key = call.derivedKey ?? deriveKey(policy.keyStrategy, { ...call, scope, canonicalArgs });
  const argsText = call.args === undefined ? null : JSON.stringify(redact(call.args, policy.redactFields));
  return { ...call, scope, key, strategy: policy.keyStrategy, argsFingerprint, legacyArgsFingerprint, argsText };
}
