/**
 * Opaque page cursors: the position of the last row shown. Lists ordered by (time, id), newest
 * first, hand out `Cursor`; a list sorted by a column hands out `SortCursor`, which carries the
 * sort it belongs to, the row's value in that column and its id (the tiebreak). Either way the
 * next page starts strictly after that position, so rows inserted meanwhile never shift a page
 * boundary and no row is listed twice or skipped. Plain base64url of JSON (no Buffer: the
 * contract that validates cursors also runs in the browser).
 */
export interface Cursor {
  at: number;
  id: string;
}

/** A position in a list sorted by `sort` (`<column>:<asc|desc>`); `value` null for a blank cell. */
export interface SortCursor {
  sort: string;
  value: string | number | null;
  id: string;
}

const MAX_ID = 200;
const MAX_VALUE = 1_000;
const SORT_TAG = "s";

/** UTF-8 bytes under base64url: a sorted list's value may be any text (a tool name in NFC). */
function toBase64Url(json: unknown): string {
  const bytes = new TextEncoder().encode(JSON.stringify(json));
  return btoa(String.fromCharCode(...bytes)).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

function fromBase64Url(text: string): unknown {
  const binary = atob(text.replace(/-/g, "+").replace(/_/g, "/"));
  return JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(Uint8Array.from(binary, (c) => c.charCodeAt(0))));
}

const validId = (id: unknown): id is string => typeof id === "string" && id.length > 0 && id.length <= MAX_ID;

export function encodeCursor(cursor: Cursor): string {
  return toBase64Url([cursor.at, cursor.id]);
}

/** Null for anything this module did not encode as a (time, id) cursor. */
export function decodeCursor(text: string): Cursor | null {
  try {
    const parsed = fromBase64Url(text);
    if (!Array.isArray(parsed) || parsed.length !== 2) return null;
    const [at, id] = parsed;
    if (!Number.isSafeInteger(at) || at < 0 || !validId(id)) return null;
    return { at, id };
  } catch {
    return null;
  }
}

export function encodeSortCursor(cursor: SortCursor): string {
  return toBase64Url([SORT_TAG, cursor.sort, cursor.value, cursor.id]);
}

/** Null for anything this module did not encode as a sorted list's cursor. */
export function decodeSortCursor(text: string): SortCursor | null {
  try {
    const parsed = fromBase64Url(text);
    if (!Array.isArray(parsed) || parsed.length !== 4 || parsed[0] !== SORT_TAG) return null;
    const [, sort, value, id] = parsed;
    if (typeof sort !== "string" || sort.length === 0 || sort.length > 100 || !validId(id)) return null;
    const valueOk = value === null || Number.isSafeInteger(value) || (typeof value === "string" && value.length <= MAX_VALUE);
    return valueOk ? { sort, value, id } : null;
  } catch {
    return null;
  }
}
