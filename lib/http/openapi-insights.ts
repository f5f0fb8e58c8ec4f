import type { OpenAPIRegistry } from "@asteasolutions/zod-to-openapi";
import { DedupResponseSchema, TimeseriesResponseSchema, TopRunsResponseSchema } from "../contract/stats";
import { StormListQuerySchema, StormListResponseSchema } from "../contract/storms";
import { ErrorResponseSchema } from "../contract/v1";
import { ProjectParams } from "./params";
import { DedupQuery, TimeseriesQuery, TopRunsQuery } from "./range-query";
import { json } from "./openapi-pieces";


const errors = {
  400: json(ErrorResponseSchema, "Invalid query: a bad range (from after to, longer than the endpoint allows), bucket or limit"),
  401: json(ErrorResponseSchema, "No or wrong admin token (or IDEMGATE_ADMIN_TOKEN unset)"),
  404: json(ErrorResponseSchema, "Unknown project"),
  503: json(ErrorResponseSchema, "Store unavailable: retry"),
};

/** Statistics and retry storms for the dashboard; guarded like the other admin routes (registerAdminPaths). */
export function registerInsightPaths(registry: OpenAPIRegistry): void {
  const security = [{ adminToken: [] }];
  const base = "/api/v1/admin/projects/{projectId}";
  const stats = ["stats"];

  registry.registerPath({
    method: "get",
    path: `${base}/stats/timeseries`,
    summary: "Decisions and outcomes per tool and bucket (minute, hour or day), read from the per-minute rollups",
    tags: stats,
    security,
    request: { params: ProjectParams, query: TimeseriesQuery },
    responses: { 200: json(TimeseriesResponseSchema, "One series per tool and decision"), ...errors },
  });
  registry.registerPath({
    method: "get",
    path: `${base}/stats/dedup`,
    summary: "Dedup rate (dedup hits / begins) and decision figures per tool, read from the rollups",
    tags: stats,
    security,
    request: { params: ProjectParams, query: DedupQuery },
    responses: { 200: json(DedupResponseSchema, "Figures per tool and in total"), ...errors },
  });
  registry.registerPath({
    method: "get",
    path: `${base}/stats/top-runs`,
    summary: "Runs by duplicate pressure (dedup hits) among the latest begins of a range of at most a day",
    tags: stats,
    security,
    request: { params: ProjectParams, query: TopRunsQuery },
    responses: { 200: json(TopRunsResponseSchema, "Runs, most dedup hits first"), ...errors },
  });
  registry.registerPath({
    method: "get",
    path: `${base}/stats/storms`,
    summary: "The retry storms open now",
    tags: stats,
    security,
    request: { params: ProjectParams },
    responses: { 200: json(StormListResponseSchema, "Open incidents, latest first"), ...errors },
  });
  registry.registerPath({
    method: "get",
    path: `${base}/storms`,
    summary: "Retry-storm incidents, open and closed (a tool's dedup hits per window far above its trailing baseline)",
    tags: ["storms"],
    security,
    request: { params: ProjectParams, query: StormListQuerySchema },
    responses: { 200: json(StormListResponseSchema, "Incidents, latest first"), ...errors },
  });
}
