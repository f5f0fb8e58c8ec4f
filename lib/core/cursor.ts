/**
 * Opaque page cursors for lists ordered by (time, id), newest first: the position of the last
 * row shown. Both halves are immutable for a row, so a page boundary never moves when rows are
 * inserted, and no row is listed twice. Plain base64url of JSON (no Buffer: the contract that
 * validates cursors also runs in the browser).
 */
export interface Cursor {
  at: number;
  id: string;
}

const MAX_ID = 200;

export function encodeCursor(cursor: Cursor): string {
  return btoa(JSON.stringify([cursor.at, cursor.id])).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

/** Null for anything this module did not encode. */
export function decodeCursor(text: string): Cursor | null {
  try {
    const parsed: unknown = JSON.parse(atob(text.replace(/-/g, "+").replace(/_/g, "/")));
    if (!Array.isArray(parsed) || parsed.length !== 2) return null;
    const [at, id] = parsed;
    if (!Number.isSafeInteger(at) || at < 0 || typeof id !== "string" || id.length === 0 || id.length > MAX_ID) return null;
    return { at, id };
  } catch {
    return null;
  }
}
