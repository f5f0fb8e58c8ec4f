/**
 * The business scope a policy derives from argument fields (`scopeFrom: ["/orderId"]`, RFC 6901
 * JSON pointers), so "refund order 42" keys on the order however the model words the rest. Null
 * when a pointer finds nothing usable: the key then falls back to the args, never to a partial scope.
 */
export function scopeFromArgs(args: unknown, pointers: readonly string[]): string | null {
  const parts = scopePartsFromArgs(args, pointers);
  return parts === null ? null : joinScope(parts);
}

export interface ScopePart {
  pointer: string;
  value: string;
}

/** The values scopeFromArgs joins, one per pointer; null as there. */
export function scopePartsFromArgs(args: unknown, pointers: readonly string[]): ScopePart[] | null {
  if (pointers.length === 0) return null;
  const parts: ScopePart[] = [];
  for (const pointer of pointers) {
    const value = resolvePointer(args, pointer);
    if (typeof value === "string" && value.length > 0) parts.push({ pointer, value: value.normalize("NFC") });
    else if ((typeof value === "number" && Number.isFinite(value)) || typeof value === "boolean") parts.push({ pointer, value: String(value) });
    else return null;
  }
  return parts;
}

export function joinScope(parts: readonly ScopePart[]): string {
  return parts.map(({ pointer, value }) => `${pointer}=${value}`).join("&");
}

/** The pointer's reference tokens (`/a~1b/c` → `a/b`, `c`); none for a malformed pointer. */
export function pointerTokens(pointer: string): string[] {
  if (!JSON_POINTER.test(pointer)) return [];
  return pointer
    .slice(1)
    .split("/")
    .map((raw) => raw.replace(/~1/g, "/").replace(/~0/g, "~"));
}

export const JSON_POINTER = /^(\/([^~/]|~[01])*)+$/;

export function resolvePointer(document: unknown, pointer: string): unknown {
  if (!JSON_POINTER.test(pointer)) return undefined;
  let current = document;
  for (const token of pointerTokens(pointer)) {
    if (Array.isArray(current) && /^(0|[1-9]\d*)$/.test(token)) current = current[Number(token)];
    else if (current !== null && typeof current === "object" && !Array.isArray(current) && Object.hasOwn(current, token)) current = (current as Record<string, unknown>)[token];
    else return undefined;
  }
  return current;
}
