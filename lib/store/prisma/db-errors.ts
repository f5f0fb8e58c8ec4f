import { isPgUnavailable } from "../connection/pg-errors";
import { toStoreError } from "../connection/sqlite-connection";
import { StoreUnavailableError } from "../ports/gate-store";

/**
 * Prisma's own codes for "cannot reach / timed out / pool exhausted / connection closed / no
 * transaction could start (or finish) in time".
 */
const UNAVAILABLE_PRISMA_CODES = new Set(["P1001", "P1002", "P1008", "P1017", "P2024", "P2028"]);
/** The driver adapters' error kinds that mean the same (@prisma/driver-adapter-utils). */
const UNAVAILABLE_KINDS = new Set(["SocketTimeout", "DatabaseNotReachable", "TooManyConnections", "ConnectionClosed", "TlsConnectionError", "TransactionWriteConflict"]);

interface AdapterCause {
  kind?: string;
  /** SQLite adapter: the driver's code (SQLITE_BUSY, …). */
  originalCode?: string;
  /** pg adapter: the server's SQLSTATE. */
  code?: string;
  message?: string;
}

/** A database refusing new sessions (ALLOW_CONNECTIONS false, shutting down) fails the connect: retryable. */
const REFUSING_SESSIONS = /not currently accepting connections|the database system is (starting up|shutting down)/i;

/** The driver's own failure under Prisma's wrapper: meta.driverAdapterError.cause (or the error's cause). */
function adapterCause(error: unknown): AdapterCause | null {
  const meta = (error as { meta?: { driverAdapterError?: { cause?: AdapterCause } } }).meta;
  const cause = meta?.driverAdapterError?.cause ?? (error as { cause?: AdapterCause }).cause;
  return typeof cause === "object" && cause !== null ? cause : null;
}

/** True when the database could not serve the query (as opposed to the query being wrong). */
export function isDbUnavailable(error: unknown): boolean {
  if (error instanceof StoreUnavailableError) return true;
  const code = (error as { code?: unknown }).code;
  if (typeof code === "string" && UNAVAILABLE_PRISMA_CODES.has(code)) return true;
  const cause = adapterCause(error);
  if (cause?.kind && UNAVAILABLE_KINDS.has(cause.kind)) return true;
  const original = cause?.originalCode;
  if (original && toStoreError({ code: original }) instanceof StoreUnavailableError) return true;
  if (cause?.kind === "postgres" && (isPgUnavailable({ code: cause.code }) || REFUSING_SESSIONS.test(cause.message ?? ""))) return true;
  return isPgUnavailable(error);
}

/** Runs a repository query; unavailability becomes the retryable StoreUnavailableError (503). */
export async function guardDb<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw isDbUnavailable(error) ? new StoreUnavailableError(error) : error;
  }
}

/** Epoch-ms columns are BigInt in the schema; every value we store fits in 2^53. */
export function numOrNull(value: bigint | null): number | null {
  return value === null ? null : Number(value);
}
