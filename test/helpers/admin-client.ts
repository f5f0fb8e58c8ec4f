import type { z } from "zod";
import {
  EffectivePolicyResponseSchema,
  PolicyChangeResponseSchema,
  PolicyHistoryResponseSchema,
  PolicyListResponseSchema,
  SimulateResponseSchema,
} from "../../lib/contract/admin-policies";
import type { PolicyOverrides } from "../../lib/core/policy";
import { ErrorResponseSchema } from "../../lib/contract/v1";
import { fetchRetryingResets } from "./reset-retry";

export const TEST_ADMIN_TOKEN = "test-admin-token-0123456789abcdef";

/** The operator policy API over real HTTP; every answer is parsed with the contract's schema. */
export class AdminClient {
  constructor(
    readonly baseUrl: string,
    readonly projectId: string,
    readonly token: string = TEST_ADMIN_TOKEN,
  ) {}

  path(tool?: string, rest = ""): string {
    const base = `/api/v1/admin/projects/${encodeURIComponent(this.projectId)}/policies`;
    return tool === undefined ? base : `${base}/${encodeURIComponent(tool)}${rest}`;
  }

  async raw(method: string, path: string, body?: unknown, token: string | null = this.token): Promise<Response> {
    return fetchRetryingResets(`${this.baseUrl}${path}`, {
      method,
      headers: {
        ...(token !== null ? { authorization: `Bearer ${token}` } : {}),
        ...(body !== undefined ? { "content-type": "application/json" } : {}),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  }

  private async parsed<S extends z.ZodType>(res: Response, schema: S): Promise<z.infer<S>> {
    const json = await res.json();
    if (!res.ok) throw new Error(`HTTP ${res.status}: ${JSON.stringify(ErrorResponseSchema.parse(json))}`);
    return schema.parse(json);
  }

  async list() {
    return this.parsed(await this.raw("GET", this.path()), PolicyListResponseSchema);
  }

  async effective(tool: string) {
    return this.parsed(await this.raw("GET", this.path(tool)), EffectivePolicyResponseSchema);
  }

  async put(tool: string, policy: PolicyOverrides, reason = "test", extra: { author?: string; expectedVersion?: number } = {}) {
    return this.parsed(await this.raw("PUT", this.path(tool), { policy, reason, ...extra }), PolicyChangeResponseSchema);
  }

  async history(tool: string) {
    return this.parsed(await this.raw("GET", this.path(tool, "/revisions")), PolicyHistoryResponseSchema);
  }

  async restore(tool: string, version: number, reason = "restore") {
    return this.parsed(await this.raw("POST", this.path(tool, `/revisions/${version}/restore`), { reason }), PolicyChangeResponseSchema);
  }

  async simulate(tool: string, policy: PolicyOverrides, sampleSize?: number) {
    const body = { policy, ...(sampleSize !== undefined ? { sampleSize } : {}) };
    return this.parsed(await this.raw("POST", this.path(tool, "/simulate"), body), SimulateResponseSchema);
  }

  async expectError(method: string, path: string, body?: unknown, token: string | null = this.token) {
    const res = await this.raw(method, path, body, token);
    return { status: res.status, body: ErrorResponseSchema.parse(await res.json()) };
  }
}
