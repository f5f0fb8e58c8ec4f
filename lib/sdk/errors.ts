import type { ErrorCode } from "../contract/v1";

/** What a tool's failure looks like on the wire: the gate caches permanent ones and releases retryable ones. */
export interface ToolErrorInfo {
  message: string;
  retryable: boolean;
  retryAfterSeconds?: number;
  /** A permanent failure's own answer, kept and replayed with it (the HTTP middleware's 4xx response). */
  result?: unknown;
}

export type GateErrorCode = ErrorCode | "network" | "timeout" | "bad_response";

/**
 * The gate could not answer (transport failure or an error body). `retryable` says whether sending
 * the *same* request again can help; the SDK does that by itself before this reaches the caller.
 */
export class GateError extends Error {
  constructor(
    readonly code: GateErrorCode,
    message: string,
    readonly retryable: boolean,
    readonly details: { status?: number; retryAfterMs?: number; requestId?: string; cause?: unknown } = {},
  ) {
    super(message, details.cause !== undefined ? { cause: details.cause } : undefined);
    this.name = "GateError";
  }
}

/** Throw this from a tool to say explicitly whether retrying can help. */
export class ToolError extends Error {
  readonly retryable: boolean;
  readonly retryAfterSeconds?: number;

  constructor(message: string, options: { retryable: boolean; retryAfterSeconds?: number; cause?: unknown }) {
    super(message, options.cause !== undefined ? { cause: options.cause } : undefined);
    this.name = "ToolError";
    this.retryable = options.retryable;
    if (options.retryAfterSeconds !== undefined) this.retryAfterSeconds = options.retryAfterSeconds;
  }
}

/** The SDK aborted the tool because another attempt now owns the key (heartbeat answered lease_lost). */
export class LeaseLostError extends Error {
  constructor(callId: string) {
    super(`the lease on ${callId} was lost: another attempt owns the call now`);
    this.name = "LeaseLostError";
  }
}

const NETWORK_CODES = new Set([
  "ECONNRESET",
  "ECONNREFUSED",
  "ECONNABORTED",
  "EPIPE",
  "ENOTFOUND",
  "EAI_AGAIN",
  "ENETUNREACH",
  "EHOSTUNREACH",
  "ETIMEDOUT",
  "ESOCKETTIMEDOUT",
  "UND_ERR_SOCKET",
  "UND_ERR_CONNECT_TIMEOUT",
  "UND_ERR_HEADERS_TIMEOUT",
  "UND_ERR_BODY_TIMEOUT",
  "UND_ERR_CLOSED",
]);
const TIMEOUT_NAMES = new Set(["TimeoutError", "AbortError", "ConnectTimeoutError", "HeadersTimeoutError"]);
const MAX_MESSAGE = 10_000;

type Inspectable = {
  name?: unknown;
  code?: unknown;
  message?: unknown;
  retryable?: unknown;
  retryAfterSeconds?: unknown;
  status?: unknown;
  statusCode?: unknown;
  cause?: unknown;
};

/**
 * Whether a thrown error is transient. An error may say so itself (`retryable: boolean`, as
 * ToolError does); otherwise timeouts, network failures and HTTP 408/425/429/5xx are retryable and
 * everything else is permanent (cached and replayed as a failure).
 */
export function isRetryableError(error: unknown, depth = 0): boolean {
  if (error === null || typeof error !== "object" || depth > 4) return false;
  const e = error as Inspectable;
  if (typeof e.retryable === "boolean") return e.retryable;
  if (typeof e.name === "string" && TIMEOUT_NAMES.has(e.name)) return true;
  if (typeof e.code === "string" && NETWORK_CODES.has(e.code)) return true;
  const status = typeof e.status === "number" ? e.status : typeof e.statusCode === "number" ? e.statusCode : undefined;
  if (status !== undefined) return status === 408 || status === 425 || status === 429 || status >= 500;
  if (e.name === "TypeError" && e.message === "fetch failed") return true;
  return e.cause !== undefined && isRetryableError(e.cause, depth + 1);
}

/** The wire form of a thrown error, as the SDK completes the call with it. */
export function toToolErrorInfo(error: unknown): ToolErrorInfo {
  const raw = error instanceof Error ? error.message || error.name : typeof error === "string" ? error : safeString(error);
  const info: ToolErrorInfo = { message: raw.slice(0, MAX_MESSAGE) || "tool failed", retryable: isRetryableError(error) };
  const after = (error as Inspectable | null)?.retryAfterSeconds;
  if (typeof after === "number" && Number.isFinite(after) && after >= 0) info.retryAfterSeconds = Math.min(86_400, Math.ceil(after));
  return info;
}

function safeString(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}
