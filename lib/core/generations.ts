import type { ToolPolicy } from "./policy";
import { type CallRecord, isExpired } from "./record";

/**
 * Key generations (DESIGN.md "Key strategies"): an approved resend does not overwrite a key's
 * outcome, it raises the key's generation. Generation 1 is the derived key itself; generation n
 * runs under `key:g<n>`, which is also the idempotency key the tool passes downstream, so the
 * downstream service sees a new request instead of deduplicating it against the first one.
 */
const GENERATION_SUFFIX = /:g(\d+)$/;

export function generationKey(baseKey: string, generation: number): string {
  return generation <= 1 ? baseKey : `${baseKey}:g${generation}`;
}

/** The derived key a record's key belongs to (derived keys are hex digests, so the suffix is unambiguous). */
export function baseKeyOf(key: string): string {
  return key.replace(GENERATION_SUFFIX, "");
}

export function generationOf(key: string): number {
  const match = GENERATION_SUFFIX.exec(key);
  return match ? Number(match[1]) : 1;
}

/**
 * Whether a begin on this record would be answered from its stored outcome (replay, refused or
 * conflict): only then is there anything for a resend to bypass.
 */
export function isCachedOutcome(record: CallRecord | null, policy: ToolPolicy, now: number): record is CallRecord {
  if (!record || isExpired(record, now)) return false;
  if (record.state === "succeeded") return true;
  return record.state === "failed" && policy.cacheFailures;
}

/** Records a resend can be asked for: a completed call, whatever its cached status. */
export function isCompleted(record: CallRecord): boolean {
  return record.state === "succeeded" || record.state === "failed";
}
