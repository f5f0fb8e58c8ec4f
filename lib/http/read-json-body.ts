import { AppError } from "../server/app-error";
import { assertWithinJsonBounds } from "../server/json-bounds";

export const MAX_BODY_BYTES = 1024 * 1024;

/** Reads at most MAX_BODY_BYTES, so an oversized body is refused without being buffered whole. */
export async function readJsonBody(req: Request): Promise<unknown> {
  const declared = Number(req.headers.get("content-length") ?? "0");
  if (declared > MAX_BODY_BYTES) throw tooLarge();
  const contentType = req.headers.get("content-type");
  if (contentType && !/^application\/(.+\+)?json\b/i.test(contentType)) {
    throw new AppError("unsupported_media_type", `send application/json (got ${contentType.split(";")[0]})`);
  }
  if (!req.body) throw new AppError("invalid_json", "the request body is empty; send a JSON object");
  const reader = req.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > MAX_BODY_BYTES) {
      await reader.cancel().catch(() => undefined);
      throw tooLarge();
    }
    chunks.push(value);
  }
  const text = Buffer.concat(chunks).toString("utf8");
  if (text.trim() === "") throw new AppError("invalid_json", "the request body is empty; send a JSON object");
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new AppError("invalid_json", `the request body is not JSON: ${(error as Error).message}`);
  }
  assertWithinJsonBounds(parsed, "the request body");
  return parsed;
}

function tooLarge(): AppError {
  return new AppError("payload_too_large", `the request body exceeds ${MAX_BODY_BYTES} bytes`);
}
