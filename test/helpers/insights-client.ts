import type { z } from "zod";
import { DedupResponseSchema, TimeseriesResponseSchema, TopRunsResponseSchema } from "../../lib/contract/stats";
import { StormListResponseSchema } from "../../lib/contract/storms";
import { ErrorResponseSchema } from "../../lib/contract/v1";
import { TEST_ADMIN_TOKEN } from "./admin-client";
import { fetchRetryingResets } from "./reset-retry";

type Query = Record<string, string | number | undefined>;

/** The statistics and storms API over real HTTP; every answer is parsed with the contract's schema. */
export class InsightsClient {
  constructor(
    readonly baseUrl: string,
    readonly projectId: string,
    readonly token: string = TEST_ADMIN_TOKEN,
  ) {}

  url(path: string, query: Query = {}): string {
    const search = new URLSearchParams();
    for (const [name, value] of Object.entries(query)) if (value !== undefined) search.set(name, String(value));
    const qs = search.toString();
    return `${this.baseUrl}/api/v1/admin/projects/${encodeURIComponent(this.projectId)}${path}${qs ? `?${qs}` : ""}`;
  }

  async get<S extends z.ZodType>(schema: S, path: string, query?: Query): Promise<z.infer<S>> {
    const res = await fetchRetryingResets(this.url(path, query), { headers: { authorization: `Bearer ${this.token}` } });
    const json = await res.json();
    if (!res.ok) throw new Error(`HTTP ${res.status} GET ${path}: ${JSON.stringify(ErrorResponseSchema.parse(json))}`);
    return schema.parse(json);
  }

  storms(status?: "open" | "closed") {
    return this.get(StormListResponseSchema, "/storms", { status });
  }

  openStorms() {
    return this.get(StormListResponseSchema, "/stats/storms");
  }

  timeseries(query: Query) {
    return this.get(TimeseriesResponseSchema, "/stats/timeseries", query);
  }

  dedup(query: Query = {}) {
    return this.get(DedupResponseSchema, "/stats/dedup", query);
  }

  topRuns(query: Query = {}) {
    return this.get(TopRunsResponseSchema, "/stats/top-runs", query);
  }

  async expectError(path: string, query: Query = {}, token: string | null = this.token) {
    const res = await fetchRetryingResets(this.url(path, query), { headers: token === null ? {} : { authorization: `Bearer ${token}` } });
    return { status: res.status, body: ErrorResponseSchema.parse(await res.json()) };
  }
}
