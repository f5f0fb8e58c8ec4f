import { parseExactJson } from "../sdk/exact-json";
import { AppError } from "../server/app-error";
import { assertWithinJsonBounds } from "../server/gate/json-bounds";
import { type BodySource, MAX_BODY_BYTES, readBoundedBody } from "./bounded-body";
import type { HeaderReader } from "./header-reader";

export { MAX_BODY_BYTES };

/** A JSON body read through the one bounded reader (bounded-body.ts), so an oversized body is refused without being buffered whole. */
export async function readJsonBody(req: Request): Promise<unknown> {
  return readJsonBodyFrom(req.headers, req.body);
}

/** The same for any body source: a web stream (a route handler's Request) or a Node request (the lean agent path). */
export async function readJsonBodyFrom(headers: HeaderReader, body: BodySource | null): Promise<unknown> {
  const contentType = headers.get("content-type");
  if (contentType && !/^application\/(.+\+)?json\b/i.test(contentType)) {
    throw new AppError("unsupported_media_type", `send application/json (got ${contentType.split(";")[0]})`);
  }
  if (!body) throw emptyBody();
  const text = (await readBoundedBody(headers, body)).toString("utf8");
  if (text.trim() === "") throw emptyBody();
  let parsed: unknown;
  try {
    // Numbers a double cannot hold as written keep their text (exact-json.ts): two accounts
    // 9007199254740993 and …992 in a begin's args are two payloads, not one.
    parsed = parseExactJson(text);
  } catch (error) {
    throw new AppError("invalid_json", `the request body is not JSON: ${(error as Error).message}`);
  }
  assertWithinJsonBounds(parsed, "the request body");
  return parsed;
}

function emptyBody(): AppError {
  return new AppError("invalid_json", "the request body is empty; send a JSON object");
}
