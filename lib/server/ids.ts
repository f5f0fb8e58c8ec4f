import { randomBytes } from "node:crypto";

/**
 * Prefixed, time-sortable ids (`call_…`, `evt_…`): the prefix says what a pasted id is, the
 * leading timestamp keeps ledger ids in insertion order.
 */
export function newId(prefix: string, now: number = Date.now()): string {
  return `${prefix}_${now.toString(36).padStart(9, "0")}${randomBytes(10).toString("base64url")}`;
}

export function newSecret(bytes = 24): string {
  return randomBytes(bytes).toString("base64url");
}
