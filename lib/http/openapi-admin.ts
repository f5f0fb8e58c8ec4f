import type { OpenAPIRegistry } from "@asteasolutions/zod-to-openapi";
import {
  EffectivePolicyResponseSchema,
  PolicyChangeResponseSchema,
  PolicyHistoryResponseSchema,
  PolicyListResponseSchema,
  PolicyRestoreRequestSchema,
  PolicyUpdateRequestSchema,
  SimulateRequestSchema,
  SimulateResponseSchema,
} from "../contract/admin-policies";
import { ErrorResponseSchema } from "../contract/v1";
import { ProjectParams, ProjectToolParams, RevisionParams } from "./params";
import { json, jsonBody } from "./openapi-pieces";

const body = jsonBody;

const errors = {
  400: json(ErrorResponseSchema, "Invalid input: the zod issues are listed; nothing was stored"),
  401: json(ErrorResponseSchema, "No or wrong admin token (or IDEMGATE_ADMIN_TOKEN unset)"),
  404: json(ErrorResponseSchema, "Unknown project (or revision)"),
  503: json(ErrorResponseSchema, "Store unavailable: retry"),
};
const conflict = { 409: json(ErrorResponseSchema, "version_conflict: the layer is not at `expectedVersion`") };

/** The operator API for policies; guarded by IDEMGATE_ADMIN_TOKEN until operator accounts exist. */
export function registerAdminPaths(registry: OpenAPIRegistry): void {
  registry.registerComponent("securitySchemes", "adminToken", {
    type: "http",
    scheme: "bearer",
    description: "Operator token: the server's IDEMGATE_ADMIN_TOKEN",
  });
  const security = [{ adminToken: [] }];
  const base = "/api/v1/admin/projects/{projectId}/policies";
  const tags = ["policies"];

  registry.registerPath({
    method: "get",
    path: base,
    summary: "Every tool seen or configured (the `*` layer first), with its traffic in the last 24 h",
    tags,
    security,
    request: { params: ProjectParams },
    responses: { 200: json(PolicyListResponseSchema, "The tools"), ...errors },
  });
  registry.registerPath({
    method: "get",
    path: `${base}/{tool}`,
    summary: "A tool's effective policy, and where each field comes from (`*`: the project defaults)",
    tags,
    security,
    request: { params: ProjectToolParams },
    responses: { 200: json(EffectivePolicyResponseSchema, "The effective policy"), ...errors },
  });
  registry.registerPath({
    method: "put",
    path: `${base}/{tool}`,
    summary: "Replace a tool's own layer (or `*`); the next decision uses it",
    tags,
    security,
    request: { params: ProjectToolParams, ...body(PolicyUpdateRequestSchema) },
    responses: { 200: json(PolicyChangeResponseSchema, "The revision written and the new effective policy"), ...conflict, ...errors },
  });
  registry.registerPath({
    method: "get",
    path: `${base}/{tool}/revisions`,
    summary: "The layer's revisions, newest first, with author, reason and diff",
    tags,
    security,
    request: { params: ProjectToolParams },
    responses: { 200: json(PolicyHistoryResponseSchema, "The history"), ...errors },
  });
  registry.registerPath({
    method: "post",
    path: `${base}/{tool}/revisions/{version}/restore`,
    summary: "Make a past revision's layer current again, as a new revision",
    tags,
    security,
    request: { params: RevisionParams, ...body(PolicyRestoreRequestSchema) },
    responses: { 200: json(PolicyChangeResponseSchema, "The revision written and the new effective policy"), ...conflict, ...errors },
  });
  registry.registerPath({
    method: "post",
    path: `${base}/{tool}/simulate`,
    summary: "What a draft layer would have decided for the tool's latest calls",
    tags,
    security,
    request: { params: ProjectToolParams, ...body(SimulateRequestSchema) },
    responses: { 200: json(SimulateResponseSchema, "Simulated and actual decisions"), ...errors },
  });
}
