import type { ErrorCode } from "../contract/v1";

export interface AppErrorIssue {
  path: (string | number)[];
  message: string;
  code: string;
}

const BRAND = Symbol.for("idemgate.AppError");

/** The one error type services throw; lib/http maps `code` to a status in one table. */
export class AppError extends Error {
  /**
   * Next.js loads this module once per layer (instrumentation, route handlers, pages) while the
   * services are process-wide singletons, so an AppError may come from another copy of this class:
   * `instanceof` checks a process-wide brand instead of the class identity.
   */
  static override [Symbol.hasInstance](value: unknown): boolean {
    return typeof value === "object" && value !== null && BRAND in value;
  }

  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details: { retryAfterSeconds?: number; issues?: AppErrorIssue[] } = {},
  ) {
    super(message);
    this.name = "AppError";
    Object.defineProperty(this, BRAND, { value: true });
  }
}
