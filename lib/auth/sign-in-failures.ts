import { type Kysely, sql } from "kysely";
import { FAILURE_MEMORY_MS, signInDelayMs } from "../core/sign-in-backoff";

interface FailureTable {
  sign_in_failures: { email: string; failures: number; last_failed_at: number; blocked_until: number };
}

/**
 * Failed sign-ins per account, in the database so every gate instance counts the same attempts.
 * Keyed by the email as typed (trimmed, lower-cased), whether or not an account has it: refusing
 * only real accounts would tell an attacker which emails exist.
 */
export class SignInFailures {
  private readonly db: Kysely<FailureTable>;

  constructor(db: Kysely<unknown>) {
    this.db = db as unknown as Kysely<FailureTable>;
  }

  /** Until when sign-ins for this email are refused (epoch ms), or null when they are not. */
  async blockedUntil(email: string, now: number): Promise<number | null> {
    const row = await this.db.selectFrom("sign_in_failures").select("blocked_until").where("email", "=", key(email)).executeTakeFirst();
    const until = row ? Number(row.blocked_until) : 0;
    return until > now ? until : null;
  }

  /** Counts one more wrong password (a new count after an hour without one) and sets the backoff. */
  async recordFailure(email: string, now: number): Promise<void> {
    const forgotten = now - FAILURE_MEMORY_MS;
    const row = await this.db
      .insertInto("sign_in_failures")
      .values({ email: key(email), failures: 1, last_failed_at: now, blocked_until: now + signInDelayMs(1) })
      .onConflict((conflict) =>
        conflict.column("email").doUpdateSet({
          failures: sql`CASE WHEN sign_in_failures.last_failed_at < ${forgotten} THEN 1 ELSE sign_in_failures.failures + 1 END`,
          last_failed_at: now,
        }),
      )
      .returning("failures")
      .executeTakeFirstOrThrow();
    await this.db
      .updateTable("sign_in_failures")
      .set({ blocked_until: now + signInDelayMs(Number(row.failures)) })
      .where("email", "=", key(email))
      .execute();
  }

  /** A successful sign-in: the count starts again. */
  async clear(email: string): Promise<void> {
    await this.db.deleteFrom("sign_in_failures").where("email", "=", key(email)).execute();
  }
}

const key = (email: string) => email.trim().toLowerCase().slice(0, 320);
