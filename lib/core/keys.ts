import { canonicalize, sha256Hex } from "./canonical";
import type { KeyStrategy } from "./policy";

/** What the runtime knows about a call: structure of the run, never the model's wording. */
export interface KeyInput {
  projectId: string;
  tool: string;
  runId: string;
  stepId?: string | null;
  scope?: string | null;
  toolCallId?: string | null;
  /** Canonical args (already stripped of ignored fields). */
  canonicalArgs: string;
}

export class KeyDerivationError extends Error {
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(message);
    this.name = "KeyDerivationError";
  }
}

/**
 * Derive the idempotency key for a call. Each component is length-prefixed through JSON encoding,
 * so no choice of ids can make two different tuples hash the same.
 */
export function deriveKey(strategy: KeyStrategy, input: KeyInput): string {
  return sha256Hex(JSON.stringify(["idemgate/v1", strategy, ...keyParts(strategy, input)]));
}

/** The unkeyed digest of what makes up a key, and whether the call's args are part of it. */
export interface DerivedKey {
  /** deriveKey's digest: the key itself unless the args are part of it. */
  digest: string;
  /** The key is a digest of the args (the args strategy, or step without a step or scope). */
  ofArgs: boolean;
}

export function deriveKeyDigest(strategy: KeyStrategy, input: KeyInput): DerivedKey {
  const ofArgs = strategy === "args" || (strategy === "step" && !input.stepId && !input.scope);
  return { digest: deriveKey(strategy, input), ofArgs };
}

function keyParts(strategy: KeyStrategy, input: KeyInput): string[] {
  const { projectId, runId, tool } = input;
  switch (strategy) {
    case "step":
      if (input.stepId) return [projectId, runId, tool, "step", input.stepId];
      if (input.scope) return [projectId, runId, tool, "scope", input.scope];
      return [projectId, runId, tool, "args", input.canonicalArgs];
    case "scope":
      if (!input.scope) throw new KeyDerivationError("scope", `tool "${tool}" keys on scope, but the call names none`);
      return [projectId, tool, input.scope];
    case "args":
      return [projectId, runId, tool, input.canonicalArgs];
    case "toolCallId":
      if (!input.toolCallId) {
        throw new KeyDerivationError("toolCallId", `tool "${tool}" keys on toolCallId, but the call names none`);
      }
      return [projectId, runId, tool, input.toolCallId];
  }
}

export { canonicalize };
