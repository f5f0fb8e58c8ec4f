import { createHash } from "node:crypto";
import { NUMBER_FIELD, canonicalNumber } from "./exact-number";
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
 * A digest standing in for a value the caller keeps to itself (the HTTP middleware's non-JSON
 * request bodies): `{ "idemgate/sha256": "<64 hex>" }`. Canonically it is the bare hex, so the
 * fingerprint and key are what they were when the hex was sent as a plain field; it is never
 * stored as sent (prepare-call.ts keys it), since a bare SHA-256 of a short secret is brute-forced.
 */
export const DIGEST_FIELD = "idemgate/sha256";

/**
 * A client's own object shaped like a stand-in, kept apart from what it would stand for:
 * `{ "idemgate/literal": <the object> }` (lib/sdk/exact-json.ts wraps them in HTTP bodies and MCP
 * arguments). The wrapped object is taken as it is, never as a stand-in, so
 * `{"idemgate/number": "5"}` and `{"idemgate/number": "5.0"}` written by a client stay two values.
 */
export const LITERAL_FIELD = "idemgate/literal";
const HEX_DIGEST = /^[0-9a-f]{64}$/;

/** The hex of a digest stand-in, or null when `entries` (an object's) are anything else. */
export function standInDigest(entries: [string, unknown][]): string | null {
  if (entries.length !== 1) return null;
  const [name, value] = entries[0]!;
  return name === DIGEST_FIELD && typeof value === "string" && HEX_DIGEST.test(value) ? value : null;
}

/**
 * Canonical form of tool arguments: object keys NFC-normalised and sorted, ignored fields removed
 * at every depth (matched as redaction matches names: any case, Unicode form or confusable
 * spelling), strings NFC-normalised, numbers by their exact value (a `{ "idemgate/number": "…" }`
 * stand-in is the number as written: exact-number.ts), so that two spellings of the same arguments
 * fingerprint the same and two different numbers never do. Serialised directly rather than through an intermediate object, so a `__proto__`
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
  // A BigInt (the SDK in process) is the integer it is, never "null" as JSON would lose it.
  if (typeof value === "bigint") return canonicalNumber(value.toString())!;
  if (Array.isArray(value)) return `[${value.map((item) => serialize(item, ignore)).join(",")}]`;
  if (typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>);
    const literal = literalObject(entries);
    if (literal !== null) return `{${JSON.stringify(LITERAL_FIELD)}:${serializeFields(Object.entries(literal), ignore)}}`;
    const digest = standInDigest(entries);
    if (digest !== null) return JSON.stringify(digest);
    const number = standInNumber(entries);
    if (number !== null) return number;
    return serializeFields(entries, ignore);
  }
  return "null";
}

/** An object's fields, keys normalised and sorted, ignored ones left out. */
function serializeFields(entries: [string, unknown][], ignore: (name: string) => boolean): string {
  const fields: [normalized: string, raw: string, item: unknown][] = [];
  for (const [raw, item] of entries) {
    const normalized = raw.normalize("NFC");
    if (item === undefined || ignore(raw)) continue;
    fields.push([normalized, raw, item]);
  }
  fields.sort(([a, rawA], [b, rawB]) => compare(a, b) || compare(rawA, rawB));
  return `{${fields.map(([key, , item]) => `${JSON.stringify(key)}:${serialize(item, ignore)}`).join(",")}}`;
}

/** The object a literal wrapper holds, or null when `entries` are anything else. */
function literalObject(entries: [string, unknown][]): object | null {
  if (entries.length !== 1) return null;
  const [name, value] = entries[0]!;
  return name === LITERAL_FIELD && value !== null && typeof value === "object" && !Array.isArray(value) ? value : null;
}

/** The canonical text of a number stand-in (exact-number.ts), or null when `entries` are anything else. */
function standInNumber(entries: [string, unknown][]): string | null {
  if (entries.length !== 1) return null;
  const [name, value] = entries[0]!;
  return name === NUMBER_FIELD && typeof value === "string" ? canonicalNumber(value) : null;
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
