import { createHash } from "node:crypto";

/** Fields dropped before fingerprinting unless a policy says otherwise: they change on every retry. */
export const DEFAULT_IGNORE_FIELDS: readonly string[] = [
  "request_id",
  "requestId",
  "timestamp",
  "trace_id",
  "traceId",
  "idempotency_key",
];

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/**
 * Canonical form of tool arguments: object keys sorted, ignored fields removed at every depth,
 * strings NFC-normalised, so that two spellings of the same arguments fingerprint the same.
 */
export function canonicalize(value: unknown, ignoreFields: readonly string[] = DEFAULT_IGNORE_FIELDS): string {
  const ignore = new Set(ignoreFields);
  return JSON.stringify(normalize(value, ignore));
}

function normalize(value: unknown, ignore: ReadonlySet<string>): Json {
  if (value === null || value === undefined) return null;
  if (typeof value === "string") return value.normalize("NFC");
  if (typeof value === "number") return Number.isFinite(value) ? value : null;
  if (typeof value === "boolean") return value;
  if (Array.isArray(value)) return value.map((item) => normalize(item, ignore));
  if (typeof value === "object") {
    const out: { [key: string]: Json } = {};
    for (const key of Object.keys(value as object).sort()) {
      const item = (value as Record<string, unknown>)[key];
      if (ignore.has(key) || item === undefined) continue;
      out[key.normalize("NFC")] = normalize(item, ignore);
    }
    return out;
  }
  return null;
}

export function sha256Hex(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}

export function fingerprintArgs(args: unknown, ignoreFields: readonly string[] = DEFAULT_IGNORE_FIELDS): string {
  return sha256Hex(canonicalize(args ?? {}, ignoreFields));
}
