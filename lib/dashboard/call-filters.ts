import { CALL_DECISION_FILTERS, CALL_STATUSES } from "../contract/calls";

/**
 * The calls page's filters as they live in the URL (`?tool=…&decision=…`): parsed leniently (an
 * unknown status or a bad date is dropped, not an error page) and written back in a fixed order
 * with empty fields left out, so one set of filters always has one URL and one query key.
 */
export interface CallFilters {
  tool?: string;
  status?: (typeof CALL_STATUSES)[number];
  /** One decision, or several comma-separated (a chart's group: `replay,in_progress,refused`). */
  decision?: string;
  runId?: string;
  agentId?: string;
  key?: string;
  /** A value in the calls' args or result (the API's `q`; redacted values are stored masked). */
  q?: string;
  /** ISO 8601, UTC. */
  from?: string;
  to?: string;
  /** A chart bar's window: only calls with a matching decision in it (ISO 8601, UTC). */
  decidedFrom?: string;
  decidedTo?: string;
  /** Shadow mode: only the calls the gate would have prevented. */
  shadow?: "prevented";
  /** Page size; absent means the API's default. */
  limit?: number;
}

const TEXT_FIELDS = ["tool", "runId", "agentId", "key"] as const;
const ORDER = ["q", "tool", "status", "decision", "runId", "agentId", "key", "from", "to", "decidedFrom", "decidedTo", "shadow", "limit"] as const;

interface Readable {
  get(name: string): string | null;
}

const oneOf = <T extends string>(values: readonly T[], value: string | null): T | undefined =>
  value !== null && (values as readonly string[]).includes(value) ? (value as T) : undefined;

function isoOrUndefined(value: string | null): string | undefined {
  if (!value) return undefined;
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? undefined : new Date(ms).toISOString();
}

/** A comma-separated list of known decisions, deduplicated; anything unknown drops the whole filter. */
function decisionList(value: string | null): string | undefined {
  if (!value) return undefined;
  const parts = [...new Set(value.split(","))];
  return parts.every((part) => oneOf(CALL_DECISION_FILTERS, part)) ? parts.join(",") : undefined;
}

export function filtersFromSearch(params: Readable): CallFilters {
  const filters: CallFilters = {};
  for (const field of TEXT_FIELDS) {
    const value = params.get(field)?.trim();
    if (value) filters[field] = value.slice(0, 300);
  }
  // The API's bound on a search (200 characters), so a pasted long value narrows instead of failing.
  const q = params.get("q")?.trim();
  if (q) filters.q = q.slice(0, 200);
  const status = oneOf(CALL_STATUSES, params.get("status"));
  if (status) filters.status = status;
  const decision = decisionList(params.get("decision"));
  if (decision) filters.decision = decision;
  const from = isoOrUndefined(params.get("from"));
  const to = isoOrUndefined(params.get("to"));
  if (from) filters.from = from;
  if (to && (!from || Date.parse(to) > Date.parse(from))) filters.to = to;
  const decidedFrom = isoOrUndefined(params.get("decidedFrom"));
  const decidedTo = isoOrUndefined(params.get("decidedTo"));
  if (decidedFrom) filters.decidedFrom = decidedFrom;
  if (decidedTo && (!decidedFrom || Date.parse(decidedTo) > Date.parse(decidedFrom))) filters.decidedTo = decidedTo;
  if (params.get("shadow") === "prevented") filters.shadow = "prevented";
  const limit = Number(params.get("limit"));
  if (Number.isInteger(limit) && limit >= 1 && limit <= 200) filters.limit = limit;
  return filters;
}

export function filtersToSearch(filters: CallFilters): URLSearchParams {
  const search = new URLSearchParams();
  for (const field of ORDER) {
    const value = filters[field];
    if (value !== undefined && value !== "") search.set(field, String(value));
  }
  return search;
}

/** How many filters narrow the list (page size is not one). */
export function activeFilterCount(filters: CallFilters): number {
  return ORDER.filter((field) => field !== "limit" && filters[field] !== undefined).length;
}

/** `<input type="datetime-local">` holds "YYYY-MM-DDTHH:mm" without a zone: the dashboard reads it as UTC. */
export function toUtcInput(iso: string | undefined): string {
  return iso ? iso.slice(0, 16) : "";
}

export function fromUtcInput(value: string): string | undefined {
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?$/.test(value)) return undefined;
  const ms = Date.parse(`${value}Z`);
  return Number.isNaN(ms) ? undefined : new Date(ms).toISOString();
}
