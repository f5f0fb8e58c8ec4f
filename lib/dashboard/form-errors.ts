import type { z } from "zod";

export type FormResult<T> = { ok: true; data: T } | { ok: false; errors: Record<string, string> };

/**
 * Validates a form's values with the API's own zod schema; errors are keyed by field path (first
 * issue per field) for inline messages. `messages` replaces zod's wording for a field when given.
 */
export function validateForm<S extends z.ZodType>(schema: S, values: unknown, messages: Record<string, string> = {}): FormResult<z.output<S>> {
  const parsed = schema.safeParse(values);
  if (parsed.success) return { ok: true, data: parsed.data };
  const errors: Record<string, string> = {};
  for (const issue of parsed.error.issues) {
    const path = issue.path.join(".");
    errors[path] ??= messages[path] ?? issue.message;
  }
  return { ok: false, errors };
}

/** Form fields left blank are absent, not empty strings: optional schema fields then stay optional. */
export function withoutBlanks<T extends Record<string, string>>(values: T): Partial<T> {
  return Object.fromEntries(Object.entries(values).filter(([, v]) => v.trim() !== "")) as Partial<T>;
}
