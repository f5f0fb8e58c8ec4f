import { FAILURE_MEMORY_MS, signInDelayMs } from "../core/sign-in-backoff";
import { type Db, TRANSACTION_LIMITS } from "../store/prisma/client";

/**
 * Failed sign-ins per account, in the database so every gate instance counts the same attempts.
 * Keyed by the email as typed (trimmed, lower-cased), whether or not an account has it: refusing
 * only real accounts would tell an attacker which emails exist.
 */
export class SignInFailures {
  constructor(private readonly db: Db) {}

  /** Until when sign-ins for this email are refused (epoch ms), or null when they are not. */
  async blockedUntil(email: string, now: number): Promise<number | null> {
    const row = await this.db.signInFailure.findUnique({ where: { email: key(email) }, select: { blockedUntil: true } });
    const until = row ? Number(row.blockedUntil) : 0;
    return until > now ? until : null;
  }

  /**
   * Counts one more wrong password (a new count after an hour without one) and sets the backoff.
   * One transaction: a count older than the memory is reset, then an upsert increments it (a native
   * INSERT … ON CONFLICT DO UPDATE on both providers, so concurrent failures each count).
   */
  async recordFailure(email: string, now: number): Promise<void> {
    const id = key(email);
    await this.db.$transaction(async (tx) => {
      await tx.signInFailure.updateMany({ where: { email: id, lastFailedAt: { lt: now - FAILURE_MEMORY_MS } }, data: { failures: 0 } });
      const row = await tx.signInFailure.upsert({
        where: { email: id },
        create: { email: id, failures: 1, lastFailedAt: now, blockedUntil: now + signInDelayMs(1) },
        update: { failures: { increment: 1 }, lastFailedAt: now },
        select: { failures: true },
      });
      await tx.signInFailure.update({ where: { email: id }, data: { blockedUntil: now + signInDelayMs(row.failures) } });
    }, TRANSACTION_LIMITS);
  }

  /** A successful sign-in: the count starts again. */
  async clear(email: string): Promise<void> {
    await this.db.signInFailure.deleteMany({ where: { email: key(email) } });
  }
}

const key = (email: string) => email.trim().toLowerCase().slice(0, 320);
