import type { OpenAPIRegistry } from "@asteasolutions/zod-to-openapi";
import { CreatePreviewRequestSchema, DecidePreviewSchema, OperatorPreviewSchema, PreviewListQuerySchema, PreviewListSchema, PreviewSchema } from "../contract/previews";
import { errorResponse, json, jsonBody } from "./openapi-pieces";
import { PreviewIdParams, ProjectParams, ProjectPreviewParams } from "./params";

const errors = {
  400: errorResponse("Invalid input: the zod issues are listed; nothing was stored"),
  401: errorResponse("No or bad credentials"),
  403: errorResponse("self_approval, or not allowed in this project"),
  404: errorResponse("Unknown preview (another project's ids too)"),
  409: errorResponse("invalid_state (not pending, or expired), already_decided"),
  503: errorResponse("Store unavailable: retry"),
};

/** What `begin` adds when it carries `bypassToken`/`bypass` or `previewToken` (one description per status). */
export const TOKEN_BEGIN_ERRORS = {
  403: errorResponse(
    "bypass_token_invalid (unknown token), bypass_token_mismatch (other key or args), bypass_forbidden (policy bypass: never); preview_token_invalid, preview_token_mismatch (likewise for previewToken)",
  ),
  409: errorResponse("bypass_token_used / preview_token_used: the token already ran once"),
  410: errorResponse("bypass_token_expired: ask for a new resend; preview_token_expired: read the preview again for a fresh token"),
};

/** Previews: the agent's dry-run exchange and the operators' approvals inbox. */
export function registerPreviewPaths(registry: OpenAPIRegistry): void {
  const apiKey = [{ apiKey: [] }];
  const session = [{ operatorSession: [] }];
  const tags = ["previews"];
  registry.registerPath({
    method: "post",
    path: "/api/v1/calls/preview",
    summary: "Store a dry run's preview of a call; its previewToken (or, under preview: approve, a pending preview to poll)",
    tags,
    security: apiKey,
    request: jsonBody(CreatePreviewRequestSchema),
    responses: { 200: json(PreviewSchema, "The preview"), ...errors },
  });
  registry.registerPath({
    method: "get",
    path: "/api/v1/previews/{previewId}",
    summary: "A preview's status; when ready or approved, a fresh single-use previewToken",
    tags,
    security: apiKey,
    request: { params: PreviewIdParams },
    responses: { 200: json(PreviewSchema, "The preview"), ...errors },
  });
  const base = "/api/v1/operator/projects/{projectId}/previews";
  registry.registerPath({ method: "get", path: base, summary: "The approvals inbox's previews (viewer)", tags, security: session, request: { params: ProjectParams, query: PreviewListQuerySchema }, responses: { 200: json(PreviewListSchema, "Newest first"), ...errors } });
  for (const verb of ["approve", "deny"] as const) {
    registry.registerPath({
      method: "post",
      path: `${base}/{previewId}/${verb}`,
      summary: `${verb === "approve" ? "Approve (releases the token)" : "Deny"} a pending preview with a note (operator, audited; never the asker)`,
      tags,
      security: session,
      request: { params: ProjectPreviewParams, ...jsonBody(DecidePreviewSchema) },
      responses: { 200: json(OperatorPreviewSchema, "The decided preview"), ...errors },
    });
  }
}
