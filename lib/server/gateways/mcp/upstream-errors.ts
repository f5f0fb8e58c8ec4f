import { ProtocolError, SdkError, SdkErrorCode, SdkHttpError } from "@modelcontextprotocol/client";
import { UpstreamUnreachableError, describeCause } from "./upstream-connector";

/**
 * What a failed upstream call means for the record:
 * - not_run: the request never reached the tool (no connection, refused by HTTP): retryable;
 * - failed: the upstream answered with an error or a reply that is not a tool result: a failure;
 * - unknown: sent, but no answer (timeout, broken stream, cancelled): it may have run.
 */
export type UpstreamFailure =
  | { kind: "not_run"; message: string }
  | { kind: "failed"; message: string; malformed: boolean }
  | { kind: "unknown"; message: string };

const CONNECTION_CODES = new Set(["ECONNREFUSED", "ENOTFOUND", "EAI_AGAIN", "EHOSTUNREACH", "ENETUNREACH", "ECONNRESET_BEFORE_SEND"]);

function causeCode(error: unknown): string | null {
  for (let current = error, depth = 0; current && typeof current === "object" && depth < 5; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === "string" && CONNECTION_CODES.has(code)) return code;
    current = (current as { cause?: unknown }).cause;
  }
  return null;
}

export function classifyUpstreamFailure(error: unknown): UpstreamFailure {
  if (error instanceof UpstreamUnreachableError) return { kind: "not_run", message: error.message };
  if (causeCode(error)) return { kind: "not_run", message: `connection failed: ${describeCause(error)}` };
  if (error instanceof SdkHttpError) return { kind: "not_run", message: `the upstream answered HTTP ${error.status}` };
  // The SDK client reports a reply that fails its result schema as an invalid-params error.
  if (error instanceof ProtocolError && /invalid [\w/]+ result/i.test(error.message)) {
    return { kind: "failed", message: `the upstream's reply is not a valid tool result: ${error.message}`, malformed: true };
  }
  if (error instanceof ProtocolError) return { kind: "failed", message: `the upstream answered with error ${error.code}: ${error.message}`, malformed: false };
  if (error instanceof SdkError && error.code === SdkErrorCode.InvalidResult) {
    return { kind: "failed", message: `the upstream's reply is not a valid tool result: ${error.message}`, malformed: true };
  }
  if (error instanceof SdkError && error.code === SdkErrorCode.SendFailed) return { kind: "not_run", message: `sending to the upstream failed: ${describeCause(error)}` };
  if (error instanceof Error && error.name === "ZodError") return { kind: "failed", message: "the upstream's reply is not a valid tool result", malformed: true };
  return { kind: "unknown", message: describeCause(error) };
}
