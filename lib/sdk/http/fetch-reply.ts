import { parseClientJson } from "../exact-json";
import type { HttpReply } from "./stored-response";

const NULL_BODY = new Set([101, 204, 205, 304]);

/** The handler's response; with `stream` (a route that never replays) its body passes through unread. */
export async function replyFromResponse(response: Response, stream = false): Promise<HttpReply> {
  const headers: [string, string][] = [];
  response.headers.forEach((value, name) => headers.push([name, value]));
  if (stream && response.body) return { status: response.status, headers, body: null, stream: response.body };
  const bytes = new Uint8Array(await response.arrayBuffer());
  return { status: response.status, headers, body: bytes.byteLength ? bytes : null };
}

export function responseFromReply(reply: HttpReply): Response {
  const headers = new Headers();
  for (const [name, value] of reply.headers) headers.append(name, value);
  if (reply.stream && !NULL_BODY.has(reply.status)) return new Response(reply.stream, { status: reply.status, headers });
  const body = NULL_BODY.has(reply.status) || !reply.body ? null : (reply.body as Uint8Array<ArrayBuffer>);
  return new Response(body, { status: reply.status, headers });
}

const JSON_TYPE = /^application\/(?:[\w.+-]*\+)?json\b/i;

export function isJson(contentType: string | null | undefined): boolean {
  return !!contentType && JSON_TYPE.test(contentType);
}

/**
 * The body as the fingerprint sees it: JSON by value (key order and spacing do not matter, numbers
 * exactly as written: exact-json.ts), else bytes.
 */
export function bodyValue(bytes: Uint8Array, contentType: string | null | undefined): unknown {
  if (bytes.byteLength === 0) return null;
  if (isJson(contentType)) {
    try {
      return parseClientJson(Buffer.from(bytes).toString("utf8"));
    } catch {
      // Not JSON after all: fingerprinted by its bytes.
    }
  }
  return bytes;
}
