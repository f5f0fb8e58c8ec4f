import type { Readable } from "node:stream";
import { AppError } from "../server/app-error";
import type { HeaderReader } from "./header-reader";

/** The largest request body the JSON routes read: agent API, operator API, MCP and auth. */
export const MAX_BODY_BYTES = 1024 * 1024;

/**
 * After a refusal the rest of the body is read and dropped, up to this much and this long, so a
 * client still sending reads the 413 rather than a reset connection; past either the connection is
 * cut. Nothing dropped is held.
 */
const DISCARD_BYTES = 16 * MAX_BODY_BYTES;
const DISCARD_MS = 10_000;

/** A route handler's body (a web stream) or a Node request's (the lean agent path). */
export type BodySource = ReadableStream<Uint8Array> | Readable;

/**
 * The one way the server reads a request body. The limit holds on the bytes that arrive, not on
 * what `Content-Length` says: a chunked body declares no length, so it is counted as it is read
 * and refused (413) at the first chunk past the limit, before anything is parsed, run or stored.
 * A declared length over the limit is refused without reading. A content-coded body (gzip,
 * deflate, br, …) is refused (415): no route decodes one, and its size on the wire says nothing
 * of what it would expand to.
 */
export async function readBoundedBody(headers: HeaderReader, body: BodySource | null, limit: number = MAX_BODY_BYTES): Promise<Buffer> {
  const source = body ? byteSource(body) : null;
  const coding = contentCoding(headers);
  if (coding) {
    source?.discard();
    throw new AppError("unsupported_media_type", `a request body with Content-Encoding ${coding} is not accepted: send it uncompressed (identity)`);
  }
  const declared = Number(headers.get("content-length") ?? "0");
  if (declared > limit) {
    source?.discard();
    throw tooLarge(limit);
  }
  if (!source) return Buffer.alloc(0);
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (let chunk = await source.next(); chunk; chunk = await source.next()) {
    size += chunk.byteLength;
    if (size > limit) {
      source.discard();
      throw tooLarge(limit);
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks, size);
}

/** The same request with its body replaced by the bytes already read from it, for a handler that reads the body itself. */
export function withBody(req: Request, bytes: Buffer): Request {
  const headers = new Headers(req.headers);
  headers.delete("content-length");
  headers.delete("transfer-encoding");
  return new Request(req.url, { method: req.method, headers, body: bytes.byteLength ? new Uint8Array(bytes) : null, signal: req.signal });
}

function contentCoding(headers: HeaderReader): string | null {
  const value = headers.get("content-encoding");
  if (value === null) return null;
  const codings = value.split(",").map((coding) => coding.trim().toLowerCase()).filter((coding) => coding !== "" && coding !== "identity");
  return codings.length ? codings.join(", ").slice(0, 60) : null;
}

function tooLarge(limit: number): AppError {
  return new AppError("payload_too_large", `the request body is too large: it exceeds ${limit} bytes`);
}

interface ByteSource {
  /** The next chunk, or null at the end. */
  next(): Promise<Uint8Array | null>;
  /** Drops the rest in the background (bounded), then cuts the body off if it is still coming. */
  discard(): void;
}

function byteSource(body: BodySource): ByteSource {
  if (isWebStream(body)) {
    const reader = body.getReader();
    const next = async () => {
      const { done, value } = await reader.read();
      return done ? null : value;
    };
    return { next, discard: () => void dropRest(next, () => void reader.cancel().catch(() => undefined)) };
  }
  const iterator = (body as AsyncIterable<Uint8Array>)[Symbol.asyncIterator]();
  const next = async () => {
    const { done, value } = await iterator.next();
    return done ? null : (value as Uint8Array);
  };
  return { next, discard: () => void dropRest(next, () => body.destroy()) };
}

/** By shape, not `instanceof`: a route handler's stream may come from another copy of the web streams classes. */
function isWebStream(body: BodySource): body is ReadableStream<Uint8Array> {
  return typeof (body as ReadableStream<Uint8Array>).getReader === "function";
}

async function dropRest(next: () => Promise<Uint8Array | null>, cut: () => void): Promise<void> {
  const timer = setTimeout(cut, DISCARD_MS);
  timer.unref?.();
  let dropped = 0;
  try {
    for (let chunk = await next(); chunk; chunk = await next()) {
      dropped += chunk.byteLength;
      if (dropped > DISCARD_BYTES) return cut();
    }
  } catch {
    // The client went away, or the cut above ended the read: nothing more to drop.
  } finally {
    clearTimeout(timer);
  }
}
