/**
 * The audit log's filters as they live in the URL (`?actor=…&action=policy.&from=…&to=…`), parsed
 * leniently like the calls filters and written in one order, so a filtered view has one URL, one
 * query key and one export link.
 */
export interface AuditFilters {
  actor?: string;
  action?: string;
  /** ISO 8601, UTC. */
  from?: string;
  to?: string;
}

const ORDER = ["actor", "action", "from", "to"] as const;

/** Actions an operator filters by most, offered as suggestions (the field takes any prefix). */
export const KNOWN_ACTIONS = [
  "policy.",
  "policy.updated",
  "policy.restored",
  "resend.",
  "resend.requested",
  "resend.approved",
  "resend.denied",
  "resend.token_used",
  "resend.token_refused",
  "record.",
  "api_key.",
  "member.",
  "upstream.",
  "outbound_allowlist.",
] as const;

interface Readable {
  get(name: string): string | null;
}

const iso = (value: string | null): string | undefined => {
  if (!value) return undefined;
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? undefined : new Date(ms).toISOString();
};

export function auditFiltersFromSearch(params: Readable): AuditFilters {
  const filters: AuditFilters = {};
  const actor = params.get("actor")?.trim();
  const action = params.get("action")?.trim();
  if (actor) filters.actor = actor.slice(0, 254);
  if (action) filters.action = action.slice(0, 100);
  const from = iso(params.get("from"));
  const to = iso(params.get("to"));
  if (from) filters.from = from;
  if (to && (!from || Date.parse(to) > Date.parse(from))) filters.to = to;
  return filters;
}

export function auditFiltersToSearch(filters: AuditFilters): URLSearchParams {
  const search = new URLSearchParams();
  for (const field of ORDER) {
    const value = filters[field];
    if (value) search.set(field, value);
  }
  return search;
}
