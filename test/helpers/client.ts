import type { z } from "zod";
import {
  type BeginRequest,
  BeginResponseSchema,
  CallStatusSchema,
  type CompleteRequest,
  ErrorResponseSchema,
  HeartbeatResponseSchema,
} from "../../lib/contract/v1";
import { fetchRetryingResets } from "./reset-retry";

export interface HttpResult<T> {
  status: number;
  body: T;
}

/** A thin test client over real HTTP; every answer is parsed with the contract's own schema. */
export class TestClient {
  constructor(
    readonly baseUrl: string,
    readonly apiKey: string,
  ) {}

  async raw(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Response> {
    return fetchRetryingResets(`${this.baseUrl}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${this.apiKey}`,
        ...(body !== undefined ? { "content-type": "application/json" } : {}),
        ...headers,
      },
      body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body),
    });
  }

  private async parsed<S extends z.ZodType>(res: Response, schema: S): Promise<z.infer<S>> {
    const json = await res.json();
    if (!res.ok) throw new Error(`HTTP ${res.status}: ${JSON.stringify(ErrorResponseSchema.parse(json))}`);
    return schema.parse(json);
  }

  async begin(request: BeginRequest) {
    return this.parsed(await this.raw("POST", "/api/v1/calls/begin", request), BeginResponseSchema);
  }

  async complete(callId: string, request: CompleteRequest) {
    return this.parsed(await this.raw("POST", `/api/v1/calls/${callId}/complete`, request), CallStatusSchema);
  }

  async heartbeat(callId: string, leaseToken: string, extendSeconds?: number) {
    return this.parsed(
      await this.raw("POST", `/api/v1/calls/${callId}/heartbeat`, { leaseToken, extendSeconds }),
      HeartbeatResponseSchema,
    );
  }

  async status(callId: string) {
    return this.parsed(await this.raw("GET", `/api/v1/calls/${callId}`), CallStatusSchema);
  }

  /** For error cases: the status and the parsed error body. */
  async expectError(method: string, path: string, body?: unknown, headers?: Record<string, string>) {
    const res = await this.raw(method, path, body, headers);
    return { status: res.status, body: ErrorResponseSchema.parse(await res.json()) };
  }
}
