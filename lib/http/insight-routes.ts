import { z } from "zod";
import { DedupResponseSchema, ShadowResponseSchema, TimeseriesResponseSchema, TopRunsResponseSchema } from "../contract/stats";
import { StormDetailResponseSchema, StormListQuerySchema, StormListResponseSchema } from "../contract/storms";
import { services } from "../server/composition-root";
import { ProjectParams } from "./params";
import { DedupQuery, RANGE_RULES, TimeseriesQuery, TopRunsQuery, resolveRange } from "./range-query";

/**
 * The statistics and storms reads, once. Each is served twice — under /api/v1/admin (the operator
 * token or an admin session, withApiRoute) and under /api/v1/operator (any member's session,
 * withOperatorRoute) — by spreading the same piece into each wrapper: same parsing, same service,
 * same contract.
 */
interface InsightRead<PS extends z.ZodObject, QS extends z.ZodObject | undefined> {
  params: PS;
  query?: QS;
  response: z.ZodType;
  handler: (ctx: { params: z.output<PS>; query: QS extends z.ZodObject ? z.output<QS> : undefined }) => Promise<unknown>;
}

/** Keeps the schemas' own types: the OpenAPI document needs them as objects, the wrappers infer from them. */
const read = <PS extends z.ZodObject, QS extends z.ZodObject | undefined = undefined>(spec: InsightRead<PS, QS>) => spec;

/** At most one storm is open per tool: this bounds the answer, not the storms. */
const OPEN_STORMS_LIMIT = 200;

export const ProjectStormParams = ProjectParams.extend({ stormId: z.string().min(1).max(200) });

export const INSIGHT_READS = {
  timeseries: read({
    params: ProjectParams,
    query: TimeseriesQuery,
    response: TimeseriesResponseSchema,
    handler: ({ params, query }) =>
      services().insights.stats.timeseries(params.projectId, resolveRange(query, RANGE_RULES.timeseries(query.bucket)), query.bucket, query.tool ?? null),
  }),
  dedup: read({
    params: ProjectParams,
    query: DedupQuery,
    response: DedupResponseSchema,
    handler: ({ params, query }) => services().insights.stats.dedup(params.projectId, resolveRange(query, RANGE_RULES.dedup)),
  }),
  topRuns: read({
    params: ProjectParams,
    query: TopRunsQuery,
    response: TopRunsResponseSchema,
    handler: ({ params, query }) => services().insights.stats.topRuns(params.projectId, resolveRange(query, RANGE_RULES.topRuns), query.limit),
  }),
  shadow: read({
    params: ProjectParams,
    query: DedupQuery,
    response: ShadowResponseSchema,
    handler: ({ params, query }) => services().insights.stats.shadow(params.projectId, resolveRange(query, RANGE_RULES.shadow)),
  }),
  openStorms: read({
    params: ProjectParams,
    response: StormListResponseSchema,
    handler: ({ params }) => services().insights.stats.storms(params.projectId, "open", OPEN_STORMS_LIMIT),
  }),
  storms: read({
    params: ProjectParams,
    query: StormListQuerySchema,
    response: StormListResponseSchema,
    handler: ({ params, query }) => services().insights.stats.storms(params.projectId, query.status ?? null, query.limit),
  }),
  storm: read({
    params: ProjectStormParams,
    response: StormDetailResponseSchema,
    handler: ({ params }) => services().insights.stats.storm(params.projectId, params.stormId),
  }),
};
