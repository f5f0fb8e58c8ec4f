/**
 * Bounds on the shape of JSON the gate accepts (bodies, args, results). Every reader of a value
 * (canonical args, redaction, JSON.stringify, the drivers) recurses once per level: a result
 * nested a few thousand levels deep overflowed the stack inside `complete`, which answered a
 * retryable 500 for ever, until the lease lapsed and the finished tool ran again. Checked here
 * without recursion, so the check itself cannot overflow.
 */
export const JSON_BOUNDS = {
  /** Levels of nested objects and arrays, the body itself being level 1. */
  maxDepth: 100,
  /** Keys of any one object. */
  maxKeys: 10_000,
  /** Items of any one array. */
  maxArrayLength: 100_000,
} as const;

const MAX_VISITS = 1_000_000;

export type JsonBounds = { maxDepth: number; maxKeys: number; maxArrayLength: number };

export interface JsonBoundViolation {
  code: "too_deep" | "too_many_keys" | "too_long";
  path: (string | number)[];
  message: string;
}

interface Frame {
  value: unknown;
  depth: number;
  parent: Frame | null;
  name: string | number | null;
}

/** The first place where `value` exceeds a bound, or null when it is within all of them. */
export function findJsonBoundViolation(value: unknown, bounds: JsonBounds = JSON_BOUNDS): JsonBoundViolation | null {
  const stack: Frame[] = [{ value, depth: 1, parent: null, name: null }];
  // A cycle (possible only in-process) never ends, so it fails the depth bound; a value shared by
  // many parents is visited once per parent, so the visits are bounded too.
  let visits = 0;
  while (stack.length > 0) {
    const frame = stack.pop()!;
    const item = frame.value;
    if (item === null || typeof item !== "object") continue;
    if (frame.depth > bounds.maxDepth) {
      return violation("too_deep", frame, `nested deeper than ${bounds.maxDepth} levels`);
    }
    if (++visits > MAX_VISITS) return violation("too_long", frame, `more than ${MAX_VISITS} objects and arrays in all`);
    if (Array.isArray(item)) {
      if (item.length > bounds.maxArrayLength) return violation("too_long", frame, `an array of more than ${bounds.maxArrayLength} items`);
      for (let i = 0; i < item.length; i++) stack.push({ value: item[i], depth: frame.depth + 1, parent: frame, name: i });
      continue;
    }
    const keys = Object.keys(item);
    if (keys.length > bounds.maxKeys) return violation("too_many_keys", frame, `an object of more than ${bounds.maxKeys} keys`);
    for (const key of keys) stack.push({ value: (item as Record<string, unknown>)[key], depth: frame.depth + 1, parent: frame, name: key });
  }
  return null;
}

function violation(code: JsonBoundViolation["code"], frame: Frame, what: string): JsonBoundViolation {
  const path: (string | number)[] = [];
  // Only the first levels of a deep path are worth reading.
  for (let at: Frame | null = frame; at?.name != null; at = at.parent) path.push(at.name);
  path.reverse();
  const shown = path.length > 12 ? [...path.slice(0, 12), `…(${path.length - 12} more)`] : path;
  return { code, path: shown, message: `${what}${shown.length ? ` at ${shown.join(".")}` : ""}` };
}
