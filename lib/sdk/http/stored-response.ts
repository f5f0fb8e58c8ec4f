import { DEFAULT_KEEP_HEADERS } from "../../core/policy";

/** A response as the handler produced it; headers as pairs so repeated ones survive. */
export interface HttpReply {
  status: number;
  headers: [string, string][];
  body: Uint8Array | null;
  /** A body over the stored limit, passed through as it arrives (`body` then holds nothing). */
  stream?: ReadableStream<Uint8Array>;
  /** Already on its way to the client (a Node handler writing straight through): nothing is left to send. */
  sent?: true;
}

/** What the gate keeps of a response: status, the kept headers, and the body if it fits. */
export interface StoredResponse {
  status: number;
  headers: [string, string][];
  body: string | null;
  encoding: "utf8" | "base64";
  /** The body was larger than the limit: status and headers replay, the body does not. */
  bodyOmitted?: true;
}

export { DEFAULT_KEEP_HEADERS };
export const DEFAULT_MAX_STORED_BYTES = 1024 * 1024;

/** Response headers that describe this transfer, never the stored one. */
const HOP_BY_HOP = new Set(["connection", "keep-alive", "transfer-encoding", "content-length", "date", "set-cookie", "trailer", "upgrade"]);

const TEXTUAL = /^(text\/|application\/(?:[\w.+-]*\+)?(?:json|xml)\b|application\/(?:x-www-form-urlencoded|javascript))/i;

export function headerKeeper(keep: readonly string[] = DEFAULT_KEEP_HEADERS): (name: string) => boolean {
  const exact = new Set(keep.filter((k) => !k.endsWith("*")).map((k) => k.toLowerCase()));
  const prefixes = keep.filter((k) => k.endsWith("*")).map((k) => k.slice(0, -1).toLowerCase());
  return (name) => {
    const lower = name.toLowerCase();
    if (HOP_BY_HOP.has(lower)) return false;
    return exact.has(lower) || prefixes.some((prefix) => lower.startsWith(prefix));
  };
}

/**
 * Kept whatever the policy's keepHeaders say: they describe the stored bytes, and a replay without
 * them is bytes the client cannot read (a gzip body with no Content-Encoding).
 */
const DESCRIBE_BYTES = new Set(["content-type", "content-encoding"]);

/**
 * Headers RFC 9110 requires with a status (a 401 without WWW-Authenticate is not a 401 a client can
 * act on): kept for a replay of that status whatever keepHeaders says.
 */
const REQUIRED_WITH_STATUS: Record<number, readonly string[]> = {
  206: ["content-range"],
  401: ["www-authenticate"],
  405: ["allow"],
  407: ["proxy-authenticate"],
  413: ["retry-after"],
  416: ["content-range"],
  503: ["retry-after"],
};

export function toStored(reply: HttpReply, keeps: (name: string) => boolean, maxBytes: number): StoredResponse {
  const required = REQUIRED_WITH_STATUS[reply.status] ?? [];
  const headers = reply.headers.filter(([name]) => DESCRIBE_BYTES.has(name.toLowerCase()) || required.includes(name.toLowerCase()) || keeps(name));
  const contentType = reply.headers.find(([name]) => name.toLowerCase() === "content-type")?.[1] ?? "";
  if (reply.stream || reply.sent || (reply.body && reply.body.byteLength > maxBytes)) return { status: reply.status, headers, body: null, encoding: "utf8", bodyOmitted: true };
  if (!reply.body || reply.body.byteLength === 0) return { status: reply.status, headers, body: null, encoding: "utf8" };
  const buffer = Buffer.from(reply.body.buffer, reply.body.byteOffset, reply.body.byteLength);
  if (TEXTUAL.test(contentType)) {
    const text = buffer.toString("utf8");
    // Only when it survives the round trip: a mislabelled binary body stays exact as base64.
    if (Buffer.byteLength(text) === buffer.byteLength && Buffer.from(text, "utf8").equals(buffer)) return { status: reply.status, headers, body: text, encoding: "utf8" };
  }
  return { status: reply.status, headers, body: buffer.toString("base64"), encoding: "base64" };
}

export function fromStored(stored: StoredResponse): HttpReply {
  const body = stored.body === null ? null : new Uint8Array(Buffer.from(stored.body, stored.encoding));
  return { status: stored.status, headers: stored.headers, body };
}

export function isStoredResponse(value: unknown): value is StoredResponse {
  const v = value as StoredResponse | null;
  return typeof v === "object" && v !== null && typeof v.status === "number" && Array.isArray(v.headers);
}

/**
 * The draft leaves failures to the server; ours: 5xx and 408/409/429 are transient (released, a
 * retry executes), every other 4xx is permanent (cached and replayed), the rest succeeded.
 */
export function classifyStatus(status: number): "succeeded" | "retryable" | "permanent" {
  if (status >= 500 || status === 408 || status === 409 || status === 429) return "retryable";
  if (status >= 400) return "permanent";
  return "succeeded";
}
