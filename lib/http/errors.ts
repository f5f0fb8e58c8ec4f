import { z } from "zod";
import type { ErrorCode, ErrorResponse } from "../contract/v1";
import { AppError } from "../server/app-error";
import { StoreUnavailableError } from "../store/ports/gate-store";
import { type ApiResult, jsonResult, toResponse } from "./api-result";

/** The one table from error code to HTTP status and whether a retry can help. */
export const ERROR_STATUS = {
  invalid_input: { status: 400, retryable: false },
  invalid_json: { status: 400, retryable: false },
  unauthorized: { status: 401, retryable: false },
  forbidden: { status: 403, retryable: false },
  not_found: { status: 404, retryable: false },
  lease_lost: { status: 409, retryable: false },
  version_conflict: { status: 409, retryable: false },
  payload_too_large: { status: 413, retryable: false },
  unsupported_media_type: { status: 415, retryable: false },
  contention: { status: 503, retryable: true },
  store_unavailable: { status: 503, retryable: true },
  internal: { status: 500, retryable: true },
  bypass_token_invalid: { status: 403, retryable: false },
  bypass_token_mismatch: { status: 403, retryable: false },
  bypass_token_used: { status: 409, retryable: false },
  bypass_token_expired: { status: 410, retryable: false },
  preview_token_invalid: { status: 403, retryable: false },
  preview_token_mismatch: { status: 403, retryable: false },
  preview_token_used: { status: 409, retryable: false },
  preview_token_expired: { status: 410, retryable: false },
  bypass_forbidden: { status: 403, retryable: false },
  self_approval: { status: 403, retryable: false },
  already_decided: { status: 409, retryable: false },
  invalid_state: { status: 409, retryable: false },
  already_exists: { status: 409, retryable: false },
  csrf_rejected: { status: 403, retryable: false },
} as const satisfies Record<ErrorCode, { status: number; retryable: boolean }>;

export function errorResponse(error: unknown, requestId: string): Response {
  return toResponse(errorResult(error, requestId));
}

/** The error's status, headers and JSON body, written by either serving path. */
export function errorResult(error: unknown, requestId: string): ApiResult {
  const appError = toAppError(error);
  if (appError.code === "internal") console.error(`[idemgate] ${requestId} unexpected error`, error);
  const { status, retryable } = ERROR_STATUS[appError.code];
  const body: ErrorResponse = {
    error: {
      code: appError.code,
      message: appError.message,
      retryable,
      ...(appError.details.retryAfterSeconds !== undefined ? { retryAfterSeconds: appError.details.retryAfterSeconds } : {}),
      ...(appError.details.issues ? { issues: appError.details.issues } : {}),
      requestId,
    },
  };
  const headers: Record<string, string> = { "x-request-id": requestId };
  if (appError.details.retryAfterSeconds !== undefined) headers["retry-after"] = String(appError.details.retryAfterSeconds);
  return jsonResult(status, body, headers);
}

function toAppError(error: unknown): AppError {
  if (error instanceof AppError) return error;
  if (error instanceof z.ZodError) {
    return new AppError("invalid_input", "the request does not match the contract", {
      issues: error.issues.map((issue) => ({
        path: issue.path.map((part) => (typeof part === "symbol" ? String(part) : part)),
        message: issue.message,
        code: issue.code,
      })),
    });
  }
  if (error instanceof StoreUnavailableError) {
    return new AppError("store_unavailable", "the store is unavailable; retry the same request", { retryAfterSeconds: 1 });
  }
  // Details of unknown failures stay in the logs: the caller gets the request id to quote.
  return new AppError("internal", "internal error");
}
