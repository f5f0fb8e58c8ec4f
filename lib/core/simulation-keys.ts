import { canonicalize } from "./canonical";
import type { ArgsFingerprinter } from "./fingerprint";
import { KeyDerivationError, deriveKeyDigest } from "./keys";
import type { ToolPolicy } from "./policy";
import type { PastBegin } from "./simulation-ledger";
import { scopeFromArgs } from "./scope-from";

/** Why a past call cannot be keyed under a draft: the wording is shown to operators. */
export const UNREPLAYABLE = {
  identityLost: "their records were purged or evicted, so the step and scope the draft's key needs are unknown",
  argsLost: "their arguments were not kept whole (redacted, or a paraphrase of the first call), and the draft fingerprints them anew",
  beforeSample: "they were decided against a call older than the sampled history",
} as const;

export type UnreplayableReason = (typeof UNREPLAYABLE)[keyof typeof UNREPLAYABLE];

export type DraftKey =
  | { kind: "keyed"; key: string; argsFingerprint: string }
  /** The draft's key strategy needs a field this call lacks: the begin would have been a 400. */
  | { kind: "rejected" }
  | { kind: "unknown"; reason: UnreplayableReason };

function sameList(a: readonly string[], b: readonly string[]): boolean {
  const sorted = [...b].sort();
  return a.length === b.length && [...a].sort().every((item, i) => item === sorted[i]);
}

/** Whether the draft derives keys and fingerprints exactly as the policy in force did. */
export function keysUnchanged(draft: ToolPolicy, inForce: ToolPolicy): boolean {
  return draft.keyStrategy === inForce.keyStrategy && sameList(draft.ignoreFields, inForce.ignoreFields) && sameOrder(draft.scopeFrom, inForce.scopeFrom);
}

function sameOrder(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((item, i) => item === b[i]);
}

/**
 * The scope a past call has under the draft: the one its caller named, else what the draft's
 * `scopeFrom` derives from its args. A recorded scope equal to what the policy in force derived
 * was not named by the caller. undefined: not knowable from what the ledger kept.
 */
function draftScope(identity: PastBegin["identity"], draft: ToolPolicy, inForce: ToolPolicy): string | null | undefined {
  if (identity.scope === undefined) return undefined;
  const derivedInForce = identity.argsKnown ? scopeFromArgs(identity.args, inForce.scopeFrom) : null;
  const named = inForce.scopeFrom.length > 0 && identity.scope !== null && identity.scope === derivedInForce ? null : identity.scope;
  if (named !== null || draft.scopeFrom.length === 0) return named;
  return identity.argsKnown ? scopeFromArgs(identity.args, draft.scopeFrom) : undefined;
}

/**
 * The key a past begin gets under the draft. When the draft keys calls as the policy in force
 * did, the recorded key and fingerprint are exact; otherwise they are derived again from what the
 * ledger kept, and a call missing something the derivation needs is reported, not guessed.
 * `fingerprint` is the install's: a fingerprint derived again must be keyed as the recorded ones
 * are, or a call whose args are known would never match one whose args were not kept.
 */
export function draftKey(begin: PastBegin, draft: ToolPolicy, inForce: ToolPolicy, fingerprint: ArgsFingerprinter): DraftKey {
  if (keysUnchanged(draft, inForce)) return { kind: "keyed", key: begin.key, argsFingerprint: begin.argsFingerprint };
  const { identity } = begin;
  const canonicalArgs = identity.argsKnown ? canonicalize(identity.args ?? {}, draft.ignoreFields) : null;
  let argsFingerprint: string;
  if (canonicalArgs !== null) argsFingerprint = fingerprint(canonicalArgs).keyed;
  else if (sameList(draft.ignoreFields, inForce.ignoreFields)) argsFingerprint = begin.argsFingerprint;
  else return { kind: "unknown", reason: UNREPLAYABLE.argsLost };
  const scope = draftScope(identity, draft, inForce);
  const needs = fieldsNeeded(draft.keyStrategy, { ...identity, scope });
  if (needs === "identity") return { kind: "unknown", reason: UNREPLAYABLE.identityLost };
  if (needs === "args" && canonicalArgs === null) return { kind: "unknown", reason: UNREPLAYABLE.argsLost };
  try {
    const { digest, ofArgs } = deriveKeyDigest(draft.keyStrategy, {
      projectId: begin.projectId,
      tool: begin.tool,
      runId: begin.runId,
      stepId: identity.stepId ?? null,
      scope: scope ?? null,
      toolCallId: begin.toolCallId,
      canonicalArgs: canonicalArgs ?? "",
    });
    // Keyed as the engine keys it (prepare-call.ts), so the key a draft shows is the one it would store.
    return { kind: "keyed", key: ofArgs ? fingerprint.argsKey(digest) : digest, argsFingerprint };
  } catch (error) {
    if (error instanceof KeyDerivationError) return { kind: "rejected" };
    throw error;
  }
}

/** What the strategy reads besides run, tool and toolCallId: unknown step or scope, or args. */
function fieldsNeeded(strategy: ToolPolicy["keyStrategy"], identity: PastBegin["identity"]): "identity" | "args" | null {
  switch (strategy) {
    case "step":
      if (identity.stepId === undefined) return "identity";
      if (identity.stepId !== null) return null;
      if (identity.scope === undefined) return "identity";
      return identity.scope !== null ? null : "args";
    case "scope":
      return identity.scope === undefined ? "identity" : null;
    case "args":
      return "args";
    case "toolCallId":
      return null;
  }
}
