import type { ErrorCode } from "../contract/v1";

export interface AppErrorIssue {
  path: (string | number)[];
  message: string;
  code: string;
}

/** The one error type services throw; lib/http maps `code` to a status in one table. */
export class AppError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details: { retryAfterSeconds?: number; issues?: AppErrorIssue[] } = {},
  ) {
    super(message);
    this.name = "AppError";
  }
}
