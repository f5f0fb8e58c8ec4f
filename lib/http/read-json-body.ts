import { AppError } from "../server/app-error";
import { assertWithinJsonBounds } from "../server/json-bounds";
import type { HeaderReader } from "./header-reader";

export const MAX_BODY_BYTES = 1024 * 1024;

/** Reads at most MAX_BODY_BYTES, so an oversized body is refused without being buffered whole. */
export async function readJsonBody(req: Request): Promise<unknown> {
  return readJsonBodyFrom(req.headers, req.body);
}

/**
 * The same for any body source: a web stream (a route handler's Request) or a Node request (the
 * lean agent path), both async-iterable. Leaving the loop early cancels a web stream; a Node
 * request's rest is left to its server (the lean path answers 413 with `connection: close`).
 */
export async function readJsonBodyFrom(headers: HeaderReader, body: AsyncIterable<Uint8Array> | null): Promise<unknown> {
  const declared = Number(headers.get("content-length") ?? "0");
  if (declared > MAX_BODY_BYTES) throw tooLarge();
  const contentType = headers.get("content-type");
  if (contentType && !/^application\/(.+\+)?json\b/i.test(contentType)) {
    throw new AppError("unsupported_media_type", `send application/json (got ${contentType.split(";")[0]})`);
  }
  if (!body) throw emptyBody();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const value of body) {
    size += value.byteLength;
    if (size > MAX_BODY_BYTES) throw tooLarge();
    chunks.push(value);
  }
  const text = Buffer.concat(chunks).toString("utf8");
  if (text.trim() === "") throw emptyBody();
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new AppError("invalid_json", `the request body is not JSON: ${(error as Error).message}`);
  }
  assertWithinJsonBounds(parsed, "the request body");
  return parsed;
}

function emptyBody(): AppError {
  return new AppError("invalid_json", "the request body is empty; send a JSON object");
}

function tooLarge(): AppError {
  return new AppError("payload_too_large", `the request body exceeds ${MAX_BODY_BYTES} bytes`);
}
