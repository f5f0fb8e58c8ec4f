import { JSON_BOUNDS, findJsonBoundViolation } from "../../core/json-bounds";
import { AppError } from "../app-error";

/**
 * A value too deep or too wide for the gate to store is a 400 that says which bound it broke, never
 * a stack overflow later (a 500 that retrying cannot cure).
 */
export function assertWithinJsonBounds(value: unknown, what: string, pathPrefix: (string | number)[] = []): void {
  const found = findJsonBoundViolation(value);
  if (!found) return;
  const { maxDepth, maxKeys, maxArrayLength } = JSON_BOUNDS;
  throw new AppError(
    "invalid_json",
    `${what} is ${found.message}; the gate takes JSON up to ${maxDepth} levels deep, ${maxKeys} keys per object and ${maxArrayLength} items per array`,
    { issues: [{ path: [...pathPrefix, ...found.path], message: found.message, code: found.code }] },
  );
}
