import { formatInstant } from "./format-time";

export interface AuditDetailField {
  label: string;
  /** What the table shows: short enough for a cell. */
  value: string;
  /** The whole value, for the tooltip and for copying; set only when `value` is shortened. */
  full?: string;
  /** Ids, keys and hashes are shown as code. */
  code: boolean;
}

const MAX_TEXT = 80;
const HASH = /^[0-9a-f]{32,}$/i;
const ID = /^[a-z]+_[0-9A-Za-z_-]{6,}$/;
/** Epoch milliseconds after 2001: a number field named …At is an instant, not a count. */
const EPOCH_MS_FLOOR = 1e12;

/** `tokenExpiresAt` → "token expires at". */
function humanize(key: string): string {
  return key.replace(/([a-z0-9])([A-Z])/g, "$1 $2").replace(/_/g, " ").toLowerCase();
}

function shorten(text: string, max: number): { value: string; full?: string } {
  return text.length <= max ? { value: text } : { value: `${text.slice(0, max - 1)}…`, full: text };
}

function field(key: string, raw: unknown): AuditDetailField {
  const label = humanize(key);
  if (raw === null || raw === undefined) return { label, value: "—", code: false };
  if (typeof raw === "boolean") return { label, value: raw ? "yes" : "no", code: false };
  if (/At$/.test(key) && typeof raw === "number" && raw >= EPOCH_MS_FLOOR) return { label, value: formatInstant(new Date(raw).toISOString(), "seconds"), code: false };
  if (/At$/.test(key) && typeof raw === "string" && !Number.isNaN(Date.parse(raw))) return { label, value: formatInstant(new Date(raw).toISOString(), "seconds"), code: false };
  if (typeof raw === "string") {
    if (HASH.test(raw)) return { label, ...shorten(raw, 13), code: true };
    return { label, ...shorten(raw, MAX_TEXT), code: ID.test(raw) };
  }
  if (typeof raw === "number") return { label, value: raw.toLocaleString("en"), code: false };
  return { label, ...shorten(JSON.stringify(raw), MAX_TEXT), code: true };
}

/**
 * An audit entry's detail as label/value pairs an operator can scan: instants as UTC times, hashes
 * cut to a prefix, long text shortened (whole in `full`). Detail that is not an object is one field.
 */
export function auditDetailFields(detail: unknown): AuditDetailField[] {
  if (detail === null || detail === undefined) return [];
  if (typeof detail !== "object" || Array.isArray(detail)) return [field("detail", detail)];
  return Object.entries(detail as Record<string, unknown>).map(([key, value]) => field(key, value));
}

export interface PolicyFieldChange {
  path: string;
  before: unknown;
  after: unknown;
}

/** A policy entry's field diff (`changes`), apart from its other fields, for a list of its own. */
export function splitPolicyChanges(detail: unknown): { changes: PolicyFieldChange[]; rest: unknown } {
  if (detail === null || typeof detail !== "object" || Array.isArray(detail)) return { changes: [], rest: detail };
  const { changes, ...rest } = detail as Record<string, unknown>;
  if (!Array.isArray(changes)) return { changes: [], rest: detail };
  const valid = changes.filter((c): c is PolicyFieldChange => typeof c === "object" && c !== null && typeof (c as { path?: unknown }).path === "string");
  return { changes: valid, rest };
}
