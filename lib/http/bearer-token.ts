import { createHash, timingSafeEqual } from "node:crypto";
import type { HeaderReader } from "./header-reader";

/** The token of an `Authorization: Bearer …` header, or null. */
export function bearerToken(req: { headers: HeaderReader }): string | null {
  const match = /^Bearer\s+(\S+)$/i.exec(req.headers.get("authorization") ?? "");
  return match ? match[1]! : null;
}

/** Constant-time comparison (of digests, so the length of the secret does not leak either). */
export function tokenMatches(given: string, expected: string): boolean {
  const digest = (value: string) => createHash("sha256").update(value).digest();
  return timingSafeEqual(digest(given), digest(expected));
}
