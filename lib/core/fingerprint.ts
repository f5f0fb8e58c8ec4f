import { createHmac, randomBytes } from "node:crypto";
import { sha256Hex } from "./canonical";

/**
 * Args fingerprints keyed with the installation's secret: HMAC-SHA256 over the SHA-256 of the
 * canonical args. A reader of a fingerprint (viewers, agents) cannot test guesses of a redacted
 * value against it without the secret. The inner SHA-256 is the fingerprint older versions
 * stored, so a record written before the change is still recognised as the same args (sameArgs),
 * and an old fingerprint maps to its keyed one without the args.
 *
 * `argsKey` does the same for idempotency keys that are a digest of the args (the `args` key
 * strategy, and `step` without a step or scope): keyed over the unkeyed key older versions
 * derived, with its own label so a key never equals a fingerprint.
 *
 * `secretTag` names a redacted value without revealing it (a scope a policy derives from a
 * redacted field, prepare-call.ts): equal values get equal tags, and only the secret's holder can
 * test a guess against one.
 */
export interface ArgsFingerprinter {
  (canonicalArgs: string): { keyed: string; legacy: string };
  argsKey(legacyKey: string): string;
  secretTag(value: string): string;
}

export function argsFingerprinter(secret: string | Uint8Array): ArgsFingerprinter {
  const fingerprint = (canonicalArgs: string) => {
    const legacy = sha256Hex(canonicalArgs);
    return { keyed: createHmac("sha256", secret).update(legacy).digest("hex"), legacy };
  };
  return Object.assign(fingerprint, {
    argsKey: (legacyKey: string) => createHmac("sha256", secret).update(`idemgate key:${legacyKey}`).digest("hex"),
    secretTag: (value: string) => createHmac("sha256", secret).update(`idemgate secret:${value}`).digest("hex").slice(0, 16),
  });
}

/** For fingerprints that are only ever compared with each other in one process (the simulator). */
export function ephemeralFingerprinter(): ArgsFingerprinter {
  return argsFingerprinter(randomBytes(32));
}

/** Same arguments: the stored fingerprint is this call's keyed one, or its unkeyed one from before the change. */
export function sameArgs(stored: string, call: { argsFingerprint: string; legacyArgsFingerprint: string }): boolean {
  return stored === call.argsFingerprint || stored === call.legacyArgsFingerprint;
}
