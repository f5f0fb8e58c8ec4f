import type { Env } from "../env";
import type { PgTimeouts } from "../store/connection/pg-timeouts";

/** The configured Postgres waits: `request` for the pools that answer agents and operators, `background` for the insight pool. */
export function pgTimeoutsFrom(config: Env, kind: "request" | "background" = "request"): PgTimeouts {
  return {
    connectMs: config.IDEMGATE_PG_CONNECT_TIMEOUT_MS,
    lockMs: config.IDEMGATE_PG_LOCK_TIMEOUT_MS,
    statementMs: kind === "background" ? config.IDEMGATE_PG_BACKGROUND_STATEMENT_TIMEOUT_MS : config.IDEMGATE_PG_STATEMENT_TIMEOUT_MS,
  };
}
