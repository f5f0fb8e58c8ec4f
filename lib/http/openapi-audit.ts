import type { OpenAPIRegistry } from "@asteasolutions/zod-to-openapi";
import { z } from "zod";
import { CallListQuerySchema } from "../contract/calls";
import { AuditExportQuerySchema, AuditListSchema, AuditQuerySchema } from "../contract/operator";
import { errorResponse, json } from "./openapi-pieces";
import { ProjectParams } from "./params";

const errors = {
  400: errorResponse("Invalid query (the zod issues are listed): an unknown filter, a bad time, `from` not before `to`"),
  401: errorResponse("No operator session (an API key is not one)"),
  404: errorResponse("Unknown project, or not a member of it"),
};

const csv = (description: string) => ({ description, content: { "text/csv": { schema: z.string() } } });

/** The audit log with its filters, and the CSV exports of the audit log and the calls list (any member role; session cookie). */
export function registerAuditPaths(registry: OpenAPIRegistry): void {
  const security = [{ operatorSession: [] }];
  const tags = ["operators"];
  const p = "/api/v1/operator/projects/{projectId}";
  registry.registerPath({
    method: "get",
    path: `${p}/audit`,
    summary: "The append-only audit log, newest first, filtered by actor, action and time; page with nextBefore (viewer)",
    tags,
    security,
    request: { params: ProjectParams, query: AuditQuerySchema },
    responses: { 200: json(AuditListSchema, "A page of entries"), ...errors },
  });
  registry.registerPath({
    method: "get",
    path: `${p}/audit/export`,
    summary: "Every audit entry matching the filters, newest first, as CSV (viewer)",
    tags,
    security,
    request: { params: ProjectParams, query: AuditExportQuerySchema },
    responses: { 200: csv("The entries: at, actor_type, actor, actor_id, action, target_type, target_id, detail (JSON), ip, user_agent, id"), ...errors },
  });
  registry.registerPath({
    method: "get",
    path: `${p}/calls/export`,
    summary: "Every call matching the calls list's filters, newest first, as CSV (viewer)",
    tags,
    security,
    request: { params: ProjectParams, query: CallListQuerySchema },
    responses: { 200: csv("The calls, one row each, with the list's columns"), ...errors },
  });
}
