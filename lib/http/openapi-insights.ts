import type { OpenAPIRegistry } from "@asteasolutions/zod-to-openapi";
import { ErrorResponseSchema } from "../contract/v1";
import { INSIGHT_READS } from "./insight-routes";
import { json } from "./openapi-pieces";

const errors = {
  400: json(ErrorResponseSchema, "Invalid query: a bad range (from after to, longer than the endpoint allows), bucket or limit"),
  404: json(ErrorResponseSchema, "Unknown project (or, under /operator, not a member of it); unknown storm"),
  503: json(ErrorResponseSchema, "Store unavailable: retry"),
};

/** The statistics and storms reads (lib/http/insight-routes.ts), documented once per family that serves them. */
const PATHS: { path: string; read: keyof typeof INSIGHT_READS; summary: string; ok: string; tag: string }[] = [
  { path: "/stats/timeseries", read: "timeseries", summary: "Decisions and outcomes per tool and bucket (minute, hour or day), read from the per-minute rollups", ok: "One series per tool and decision", tag: "stats" },
  { path: "/stats/dedup", read: "dedup", summary: "Dedup rate (dedup hits / begins) and decision figures per tool, read from the rollups", ok: "Figures per tool and in total", tag: "stats" },
  { path: "/stats/top-runs", read: "topRuns", summary: "Runs by duplicate pressure (dedup hits) among the latest begins of a range of at most a day", ok: "Runs, most dedup hits first", tag: "stats" },
  { path: "/stats/shadow", read: "shadow", summary: "Shadow mode: per tool, the executions the gate would have prevented as duplicates, over a range of at most 31 days", ok: "Tools with their would-have-prevented count", tag: "stats" },
  { path: "/stats/storms", read: "openStorms", summary: "The retry storms open now", ok: "Open incidents, latest first", tag: "stats" },
  { path: "/storms", read: "storms", summary: "Retry-storm incidents, open and closed (a tool's dedup hits per window far above its trailing baseline)", ok: "Incidents, latest first", tag: "storms" },
  { path: "/storms/{stormId}", read: "storm", summary: "One retry-storm incident and its tool's dedup hits per bucket, from the baseline windows before it to its end", ok: "The incident and its rate", tag: "storms" },
];

/**
 * Statistics and retry storms for the dashboard: under /api/v1/admin (operator token, or an admin
 * session) and, the same reads, under /api/v1/operator for any member of the project.
 */
export function registerInsightPaths(registry: OpenAPIRegistry): void {
  const families = [
    { base: "/api/v1/admin/projects/{projectId}", security: [{ adminToken: [] }], who: "", unauthorized: "No or wrong admin token (or IDEMGATE_ADMIN_TOKEN unset), and no admin session" },
    { base: "/api/v1/operator/projects/{projectId}", security: [{ operatorSession: [] }], who: " (viewer)", unauthorized: "No operator session (an API key is not one)" },
  ];
  for (const family of families) {
    for (const { path, read, summary, ok, tag } of PATHS) {
      const spec = INSIGHT_READS[read];
      registry.registerPath({
        method: "get",
        path: `${family.base}${path}`,
        summary: summary + family.who,
        tags: [tag],
        security: family.security,
        request: { params: spec.params, ...(spec.query ? { query: spec.query } : {}) },
        responses: { 200: json(spec.response, ok), 401: json(ErrorResponseSchema, family.unauthorized), ...errors },
      });
    }
  }
}
