import { sha256Hex } from "../../core/canonical";
import { newSecret } from "../ids";

export const BYPASS_TOKEN_PREFIX = "igbt_";

/** Tokens carry 256 bits of randomness, so a plain sha256 is a sufficient one-way store (as for API keys). */
export function hashBypassToken(token: string): string {
  return sha256Hex(token);
}

/** A fresh token: the plaintext goes to the agent once, only the hash is stored. */
export function mintBypassToken(): { token: string; hash: string } {
  const token = `${BYPASS_TOKEN_PREFIX}${newSecret(32)}`;
  return { token, hash: hashBypassToken(token) };
}
