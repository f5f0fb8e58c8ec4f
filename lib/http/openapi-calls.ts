import type { OpenAPIRegistry } from "@asteasolutions/zod-to-openapi";
import { ToolPageFiguresSchema, ToolPageQuerySchema } from "../contract/stats";
import { CallLedgerSchema, CallListQuerySchema, CallListSchema, DecisionListQuerySchema, DecisionListSchema, RunDetailSchema, RunListQuerySchema, RunListSchema } from "../contract/calls";
import { ProjectRunParams } from "./call-list-params";
import { errorResponse, json } from "./openapi-pieces";
import { ProjectCallParams } from "./operator-params";
import { ProjectParams, ProjectToolParams } from "./params";

const errors = {
  400: errorResponse("Invalid query (the zod issues are listed): an unknown filter, a bad cursor or time, `from` not before `to`"),
  401: errorResponse("No operator session (an API key is not one)"),
  404: errorResponse("Unknown project, or not a member of it; unknown call or run in this project"),
};

/** The calls and runs explorer of the operator API (any member role; session cookie). */
export function registerCallExplorerPaths(registry: OpenAPIRegistry): void {
  const security = [{ operatorSession: [] }];
  const tags = ["operators"];
  const p = "/api/v1/operator/projects/{projectId}";
  registry.registerPath({
    method: "get",
    path: `${p}/calls`,
    summary: "The project's calls, newest first or sorted by a column (`sort=tool:asc`): filter by tool, status, decision, run, agent, key prefix and time; page with nextCursor in the same sort (viewer)",
    tags,
    security,
    request: { params: ProjectParams, query: CallListQuerySchema },
    responses: { 200: json(CallListSchema, "A page of calls"), ...errors },
  });
  registry.registerPath({
    method: "get",
    path: `${p}/decisions`,
    summary: "Every begin with these decisions in a window, newest first, with or without a call record (a loop block has none): what a figure counted (viewer)",
    tags,
    security,
    request: { params: ProjectParams, query: DecisionListQuerySchema },
    responses: { 200: json(DecisionListSchema, "The decisions"), ...errors },
  });
  registry.registerPath({
    method: "get",
    path: `${p}/tools/{tool}/figures`,
    summary: "One tool's figures over a range (the per-tool page): calls, decisions, dedup hits and rate, execution latency p50/p95, failure rate, policy revisions (viewer)",
    tags,
    security,
    request: { params: ProjectToolParams, query: ToolPageQuerySchema },
    responses: { 200: json(ToolPageFiguresSchema, "The tool's figures"), ...errors },
  });
  registry.registerPath({
    method: "get",
    path: `${p}/calls/{callId}/events`,
    summary: "A call's ledger, oldest first, with its arguments and result masked under the tool's current policy (viewer)",
    tags,
    security,
    request: { params: ProjectCallParams },
    responses: { 200: json(CallLedgerSchema, "The call's events"), ...errors },
  });
  registry.registerPath({
    method: "get",
    path: `${p}/runs`,
    summary: "Runs, newest first by their first call, with counts; page with nextCursor (viewer)",
    tags,
    security,
    request: { params: ProjectParams, query: RunListQuerySchema },
    responses: { 200: json(RunListSchema, "A page of runs"), ...errors },
  });
  registry.registerPath({
    method: "get",
    path: `${p}/runs/{runId}`,
    summary: "A run's calls and events across its subagents (viewer)",
    tags,
    security,
    request: { params: ProjectRunParams },
    responses: { 200: json(RunDetailSchema, "The run"), ...errors },
  });
}
