/** Wrong passwords for one account answered as such (typos); the next attempt waits. */
export const FREE_FAILURES = 4;
const FIRST_DELAY_MS = 2_000;
/** The longest an account waits, however long an attacker keeps guessing: the owner is never shut out for good. */
export const MAX_DELAY_MS = 5 * 60_000;
/** Failures further apart than this start a new count. */
export const FAILURE_MEMORY_MS = 60 * 60_000;

/**
 * How long sign-ins for an account are refused after its `failures`-th consecutive wrong
 * password: nothing before the FREE_FAILURES-th, then 2 s doubling per failure, capped at five
 * minutes. So four wrong passwords are answered 401, and the fifth attempt, whatever its
 * password, 429 (as the README says).
 */
export function signInDelayMs(failures: number): number {
  if (failures < FREE_FAILURES) return 0;
  return Math.min(MAX_DELAY_MS, FIRST_DELAY_MS * 2 ** Math.min(failures - FREE_FAILURES, 30));
}
