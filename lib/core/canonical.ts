import { createHash } from "node:crypto";
import { fieldMatcher } from "./identity";

/** Fields dropped before fingerprinting unless a policy says otherwise: they change on every retry. */
export const DEFAULT_IGNORE_FIELDS: readonly string[] = [
  "request_id",
  "requestId",
  "timestamp",
  "trace_id",
  "traceId",
  "idempotency_key",
];

/**
 * Canonical form of tool arguments: object keys NFC-normalised and sorted, ignored fields removed
 * at every depth (matched as redaction matches names: any case, Unicode form or confusable
 * spelling), strings NFC-normalised, so that two spellings of the same arguments fingerprint
 * the same. Serialised directly rather than through an intermediate object, so a `__proto__`
 * field is kept like any other and keys that collide after normalisation both count.
 */
export function canonicalize(value: unknown, ignoreFields: readonly string[] = DEFAULT_IGNORE_FIELDS): string {
  return serialize(value, fieldMatcher(ignoreFields));
}

function serialize(value: unknown, ignore: (name: string) => boolean): string {
  if (value === null || value === undefined) return "null";
  if (typeof value === "string") return JSON.stringify(value.normalize("NFC"));
  if (typeof value === "number") return Number.isFinite(value) ? JSON.stringify(value) : "null";
  if (typeof value === "boolean") return value ? "true" : "false";
  if (Array.isArray(value)) return `[${value.map((item) => serialize(item, ignore)).join(",")}]`;
  if (typeof value === "object") {
    const fields: [normalized: string, raw: string, item: unknown][] = [];
    for (const [raw, item] of Object.entries(value as Record<string, unknown>)) {
      const normalized = raw.normalize("NFC");
      if (item === undefined || ignore(raw)) continue;
      fields.push([normalized, raw, item]);
    }
    fields.sort(([a, rawA], [b, rawB]) => compare(a, b) || compare(rawA, rawB));
    return `{${fields.map(([key, , item]) => `${JSON.stringify(key)}:${serialize(item, ignore)}`).join(",")}}`;
  }
  return "null";
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

export function sha256Hex(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}

export function fingerprintArgs(args: unknown, ignoreFields: readonly string[] = DEFAULT_IGNORE_FIELDS): string {
  return sha256Hex(canonicalize(args ?? {}, ignoreFields));
}
