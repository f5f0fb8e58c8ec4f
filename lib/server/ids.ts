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
  return `${prefix}_${time}${sequence.toString(36).padStart(3, "0")}${nextRandom()}`;
}

/**
 * The ids' random part: 11 base64url characters (66 random bits) cut from a pool encoded 512 ids at
 * a time. One `randomBytes(8)` per id cost ~25 µs on a loaded box (its own trip into OpenSSL each
 * time), a tenth of an in-process replay, and every decision writes an event id. The bits are the
 * same CSPRNG's, each used once. (Node's randomUUID pools its entropy the same way.)
 */
const ID_CHARS = 11;
const POOL_IDS = 512;
// 33 bytes encode to exactly 44 characters with no padding, so every 11-character slice is whole.
const POOL_BYTES = (ID_CHARS * POOL_IDS * 3) / 4;
let pool = "";
let poolNext = POOL_IDS;

function nextRandom(): string {
  if (poolNext === POOL_IDS) {
    pool = randomBytes(POOL_BYTES).toString("base64url");
    poolNext = 0;
  }
  const start = ID_CHARS * poolNext++;
  return pool.slice(start, start + ID_CHARS);
}

export function newSecret(bytes = 24): string {
  return randomBytes(bytes).toString("base64url");
}
