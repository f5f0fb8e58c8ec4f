import { fieldMatcher } from "./identity";

export const REDACTED = "[REDACTED]";

/**
 * Mask the named fields at any depth, so secrets never reach a record, an event or a span. Names
 * match whatever their case, Unicode form or confusable spelling (identity.ts): a rule for
 * `password` also masks `Password` and `pаssword` written with a Cyrillic а.
 */
export function redact(value: unknown, fields: readonly string[]): unknown {
  if (fields.length === 0) return value;
  const masked = fieldMatcher(fields);
  const walk = (item: unknown): unknown => {
    if (Array.isArray(item)) return item.map(walk);
    if (item === null || typeof item !== "object") return item;
    // fromEntries defines own properties, so a `__proto__` field survives as data.
    return Object.fromEntries(
      Object.entries(item as Record<string, unknown>).map(([name, inner]) => [name, masked(name) ? REDACTED : walk(inner)]),
    );
  };
  return walk(value);
}
