import { randomBytes } from "node:crypto";

const SEQUENCE_LIMIT = 36 ** 3;
let lastMs = 0;
let sequence = 0;

/**
 * Prefixed, time-sortable ids (`call_…`, `evt_…`): the prefix says what a pasted id is, the
 * leading timestamp keeps ledger ids in insertion order. Within one process ids are strictly
 * increasing, even within a millisecond (a per-ms sequence follows the time), because the loop
 * detector reads a run's steps back in id order.
 */
export function newId(prefix: string, now: number = Date.now()): string {
  if (now > lastMs) {
    lastMs = now;
    sequence = 0;
  } else if (++sequence >= SEQUENCE_LIMIT) {
    lastMs += 1;
    sequence = 0;
  }
  const time = lastMs.toString(36).padStart(9, "0");
  return `${prefix}_${time}${sequence.toString(36).padStart(3, "0")}${randomBytes(8).toString("base64url")}`;
}

export function newSecret(bytes = 24): string {
  return randomBytes(bytes).toString("base64url");
}
