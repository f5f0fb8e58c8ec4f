import { NUMBER_FIELD, fitsDouble } from "../core/exact-number";
import type { z } from "zod";
import {
  BeginResponseSchema,
  CallStatusSchema,
  ErrorResponseSchema,
  HeartbeatResponseSchema,
} from "../contract/v1";
import { PreviewSchema } from "../contract/previews";
import { ResendRequestSchema } from "../contract/resends";
import { RunCompensationSchema } from "../contract/sagas";
import { GateError } from "./errors";
import { traceHeaders } from "./tracing";
import type { BeginRequest, CheckReportRequest, CompleteRequest, GateTransport, HeartbeatRequest, PreviewTransport, SagaTransport, CreatePreviewRequest } from "./types";

export interface HttpTransportOptions {
  baseUrl: string;
  apiKey: string;
  /** Defaults to the global fetch; pass your own for proxies, tracing or fault injection. */
  fetch?: typeof fetch;
  /** Per request, on top of a begin's waitMs. */
  requestTimeoutMs?: number;
}

const DEFAULT_REQUEST_TIMEOUT_MS = 15_000;

/** The gate's agent API over fetch. Responses are parsed with the contract's own schemas. */
export class HttpTransport implements GateTransport, SagaTransport, PreviewTransport {
  /** The gate's bound on a request body (lib/http/bounded-body.ts, MAX_BODY_BYTES): a complete over it is refused. */
  readonly maxRequestBytes = 1024 * 1024;
  readonly baseUrl: string;
  private readonly fetchImpl: typeof fetch;
  private readonly timeoutMs: number;

  constructor(private readonly options: HttpTransportOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, "");
    this.fetchImpl = options.fetch ?? globalThis.fetch;
    this.timeoutMs = options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
  }

  begin(request: BeginRequest, signal?: AbortSignal) {
    return this.send("POST", "/api/v1/calls/begin", request, BeginResponseSchema, (request.waitMs ?? 0) + this.timeoutMs, signal);
  }

  complete(callId: string, request: CompleteRequest) {
    return this.send("POST", `/api/v1/calls/${encodeURIComponent(callId)}/complete`, request, CallStatusSchema);
  }

  reportCheck(callId: string, request: CheckReportRequest) {
    return this.send("POST", `/api/v1/calls/${encodeURIComponent(callId)}/check`, request, CallStatusSchema);
  }

  heartbeat(callId: string, request: HeartbeatRequest) {
    return this.send("POST", `/api/v1/calls/${encodeURIComponent(callId)}/heartbeat`, request, HeartbeatResponseSchema);
  }

  status(callId: string) {
    return this.send("GET", `/api/v1/calls/${encodeURIComponent(callId)}`, undefined, CallStatusSchema);
  }

  async resendToken(requestId: string, signal?: AbortSignal) {
    const request = await this.send("GET", `/api/v1/resend-requests/${encodeURIComponent(requestId)}`, undefined, ResendRequestSchema, this.timeoutMs, signal);
    return request.bypassToken ?? null;
  }

  createPreview(request: CreatePreviewRequest, signal?: AbortSignal) {
    return this.send("POST", "/api/v1/calls/preview", request, PreviewSchema, this.timeoutMs, signal);
  }

  readPreview(previewId: string, signal?: AbortSignal) {
    return this.send("GET", `/api/v1/previews/${encodeURIComponent(previewId)}`, undefined, PreviewSchema, this.timeoutMs, signal);
  }

  abortRun(runId: string, reason: string) {
    return this.send("POST", `/api/v1/runs/${encodeURIComponent(runId)}/abort`, { reason }, RunCompensationSchema);
  }

  compensationPlan(runId: string) {
    return this.send("GET", `/api/v1/runs/${encodeURIComponent(runId)}/compensation`, undefined, RunCompensationSchema);
  }

  beginCompensation(runId: string, callId: string, waitMs?: number, signal?: AbortSignal) {
    const path = `/api/v1/runs/${encodeURIComponent(runId)}/compensations/${encodeURIComponent(callId)}/begin`;
    return this.send("POST", path, waitMs === undefined ? {} : { waitMs }, BeginResponseSchema, (waitMs ?? 0) + this.timeoutMs, signal);
  }

  private async send<S extends z.ZodType>(
    method: string,
    path: string,
    body: unknown,
    schema: S,
    timeoutMs: number = this.timeoutMs,
    signal?: AbortSignal,
  ): Promise<z.infer<S>> {
    const timeout = AbortSignal.timeout(timeoutMs);
    let res: Response;
    try {
      res = await this.fetchImpl(`${this.baseUrl}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${this.options.apiKey}`,
          ...traceHeaders(),
          ...(body !== undefined ? { "content-type": "application/json" } : {}),
        },
        body: body === undefined ? undefined : JSON.stringify(body, exactBigInt),
        signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
      });
    } catch (error) {
      if (signal?.aborted) throw signal.reason;
      if (timeout.aborted) throw new GateError("timeout", `${method} ${path}: no answer in ${timeoutMs} ms`, true, { cause: error });
      throw new GateError("network", `${method} ${path}: ${describe(error)}`, true, { cause: error });
    }
    let json: unknown;
    try {
      json = await res.json();
    } catch (error) {
      // A body cut short is a transport failure; a non-JSON error page from a proxy is judged by status.
      const retryable = res.ok || isTransientStatus(res.status);
      throw new GateError("bad_response", `${method} ${path}: HTTP ${res.status} without a JSON body`, retryable, {
        status: res.status,
        cause: error,
      });
    }
    if (!res.ok) throw toGateError(res, json, `${method} ${path}`);
    const parsed = schema.safeParse(json);
    if (!parsed.success) {
      throw new GateError("bad_response", `${method} ${path}: the answer does not match the contract`, false, {
        status: res.status,
        cause: parsed.error,
      });
    }
    return parsed.data;
  }
}

function toGateError(res: Response, json: unknown, what: string): GateError {
  const retryAfterHeader = Number(res.headers.get("retry-after"));
  const parsed = ErrorResponseSchema.safeParse(json);
  if (!parsed.success) {
    return new GateError("bad_response", `${what}: HTTP ${res.status}`, isTransientStatus(res.status), { status: res.status });
  }
  const { code, message, retryable, retryAfterSeconds, requestId } = parsed.data.error;
  const seconds = retryAfterSeconds ?? (Number.isFinite(retryAfterHeader) && retryAfterHeader > 0 ? retryAfterHeader : undefined);
  return new GateError(code, `${what}: ${message}`, retryable, {
    status: res.status,
    ...(seconds !== undefined ? { retryAfterMs: seconds * 1000 } : {}),
    ...(requestId !== undefined ? { requestId } : {}),
  });
}

function isTransientStatus(status: number): boolean {
  return status === 408 || status === 429 || status >= 500;
}

function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause as { code?: string; message?: string } | undefined;
  return cause?.code ? `${error.message} (${cause.code})` : error.message;
}

/**
 * A BigInt in args (an account number past 2^53) goes as the exact number it is: JSON.stringify
 * throws on one, and a Number would be another account. One a double holds is that number; a
 * larger one is the `{ "idemgate/number": "…" }` stand-in the gate fingerprints exactly.
 */
function exactBigInt(_key: string, value: unknown): unknown {
  if (typeof value !== "bigint") return value;
  const text = value.toString();
  return fitsDouble(text) ? Number(text) : { [NUMBER_FIELD]: text };
}

