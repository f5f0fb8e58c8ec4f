/**
 * Connection-level failures (classes 08, 53, 57, 40), lock and statement timeouts, socket errors and pool timeouts: the
 * request was fine and retrying may help, so they become the retryable StoreUnavailableError.
 */
export function isPgUnavailable(error: unknown): boolean {
  const code = (error as { code?: unknown }).code;
  // 55P03: lock_timeout ran out (57014, statement_timeout, is in class 57).
  if (typeof code === "string" && (/^(08|53|57|40)/.test(code) || code === "55P03")) return true;
  if (typeof code === "string" && /^E(CONNREFUSED|CONNRESET|PIPE|TIMEDOUT|HOSTUNREACH|AI_AGAIN)$/.test(code)) return true;
  const message = error instanceof Error ? error.message : "";
  return /timeout exceeded when trying to connect|Connection terminated|Client has encountered a connection error/i.test(message);
}
