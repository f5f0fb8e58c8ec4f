import { stringify } from "csv-stringify/sync";

/**
 * A CSV download streamed page by page: `next` reads one page of rows after a cursor (null at the
 * start) and says where the next page starts; nothing is held in memory beyond one page, however
 * many rows match. Cells that a spreadsheet would run as a formula are quoted with a leading
 * apostrophe (CSV injection).
 */
export function csvResponse<Row>(input: {
  filename: string;
  columns: readonly { header: string; value: (row: Row) => unknown }[];
  next: (cursor: string | null) => Promise<{ rows: Row[]; cursor: string | null }>;
  headers?: Record<string, string>;
}): Response {
  let cursor: string | null = null;
  let started = false;
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      const encoder = new TextEncoder();
      if (!started) {
        started = true;
        controller.enqueue(encoder.encode(stringify([input.columns.map((c) => c.header)])));
      }
      const page = await input.next(cursor);
      if (page.rows.length > 0) controller.enqueue(encoder.encode(stringify(page.rows.map((row) => input.columns.map((c) => cell(c.value(row)))))));
      cursor = page.cursor;
      if (cursor === null) controller.close();
    },
  });
  return new Response(body, {
    headers: {
      "content-type": "text/csv; charset=utf-8",
      "content-disposition": `attachment; filename="${input.filename}"`,
      "cache-control": "no-store",
      ...input.headers,
    },
  });
}

function cell(value: unknown): string {
  if (value === null || value === undefined) return "";
  const text = typeof value === "string" ? value : typeof value === "number" || typeof value === "boolean" ? String(value) : JSON.stringify(value);
  return /^[=+\-@\t\r]/.test(text) ? `'${text}` : text;
}
