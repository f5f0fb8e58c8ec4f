import type { OpenAPIRegistry } from "@asteasolutions/zod-to-openapi";
import type { z } from "zod";
import {
  AddMemberSchema,
  ApiKeyListSchema,
  ApiKeySchema,
  ApproveSchema,
  CreateApiKeySchema,
  CreatedApiKeySchema,
  DenySchema,
  EvictSchema,
  MeSchema,
  MemberListSchema,
  MemberSchema,
  OperatorCreateResendSchema,
  OperatorResendRequestSchema,
  ResendListSchema,
  ResolveSchema,
  SetRoleSchema,
} from "../contract/operator";
import { CreateResendRequestSchema, ResendRequestSchema } from "../contract/resends";
import { CallStatusSchema } from "../contract/v1";
import { ProjectCallParams, ProjectKeyParams, ProjectRequestParams, ProjectUserParams, RequestIdParams } from "./operator-params";
import { CallIdParams, ProjectParams } from "./params";
import { type Schema, errorResponse, json } from "./openapi-pieces";

const error = errorResponse;

const operatorErrors = {
  400: error("Invalid input"),
  401: error("No operator session (an API key is not one)"),
  403: error("forbidden (role too low), csrf_rejected (state change from another site), self_approval"),
  404: error("Unknown project, or not a member of it; unknown id in this project"),
  409: error("already_decided, invalid_state, already_exists, version_conflict"),
};

type Method = "get" | "post" | "put" | "delete";

/** Human-approved resends: the two agent endpoints and the operator API (session cookie). */
export function registerResendPaths(registry: OpenAPIRegistry): void {
  const apiKey = [{ apiKey: [] }];
  registry.registerPath({
    method: "post",
    path: "/api/v1/calls/{callId}/resend",
    summary: "Ask a human to let a completed call run once more",
    security: apiKey,
    request: { params: CallIdParams, body: { content: { "application/json": { schema: CreateResendRequestSchema } } } },
    responses: {
      200: json(ResendRequestSchema, "The request (an open one of yours for this key and args is answered again)"),
      403: error("bypass_forbidden: the tool's policy is bypass: never"),
      404: error("Unknown call"),
      409: error("invalid_state: the call has not completed"),
    },
  });
  registry.registerPath({
    method: "get",
    path: "/api/v1/resend-requests/{requestId}",
    summary: "A resend request's status; approved, its single-use bypassToken — shown once, to the key that asked",
    security: apiKey,
    request: { params: RequestIdParams },
    responses: { 200: json(ResendRequestSchema, "The request"), 404: error("Unknown request (or another project's)") },
  });

  registry.registerComponent("securitySchemes", "operatorSession", {
    type: "apiKey",
    in: "cookie",
    name: "idemgate.session_token",
    description: "Operator session from POST /api/auth/sign-in/email; state changes also need this site's Origin",
  });
  const session = [{ operatorSession: [] }];
  const tags = ["operators"];
  const op = (method: Method, path: string, summary: string, response: Schema, params?: z.ZodObject, body?: Schema) =>
    registry.registerPath({
      method,
      path: `/api/v1/operator${path}`,
      summary,
      tags,
      security: session,
      request: { ...(params ? { params } : {}), ...(body ? { body: { content: { "application/json": { schema: body } } } } : {}) },
      responses: { 200: json(response, "OK"), ...operatorErrors },
    });
  const p = "/projects/{projectId}";
  op("get", "/me", "Who you are and your role per project (any operator)", MeSchema);
  op("get", `${p}/resend-requests`, "The project's resend requests (viewer)", ResendListSchema, ProjectParams);
  op("post", `${p}/resend-requests`, "Ask for a resend of a completed call (operator)", OperatorResendRequestSchema, ProjectParams, OperatorCreateResendSchema);
  op("get", `${p}/resend-requests/{requestId}`, "One resend request (viewer)", OperatorResendRequestSchema, ProjectRequestParams);
  op("post", `${p}/resend-requests/{requestId}/approve`, "Approve with a note; never your own request (operator)", OperatorResendRequestSchema, ProjectRequestParams, ApproveSchema);
  op("post", `${p}/resend-requests/{requestId}/deny`, "Deny with a note (operator)", OperatorResendRequestSchema, ProjectRequestParams, DenySchema);
  op("get", `${p}/calls/{callId}`, "A call's record (viewer)", CallStatusSchema, ProjectCallParams);
  op("post", `${p}/calls/{callId}/evict`, "Forget the outcome: the next begin executes afresh (operator)", CallStatusSchema, ProjectCallParams, EvictSchema);
  op("post", `${p}/calls/{callId}/resolve`, "Record the outcome found downstream (operator)", CallStatusSchema, ProjectCallParams, ResolveSchema);
  op("get", `${p}/api-keys`, "The project's API keys (admin)", ApiKeyListSchema, ProjectParams);
  op("post", `${p}/api-keys`, "Create an API key, shown once (admin)", CreatedApiKeySchema, ProjectParams, CreateApiKeySchema);
  op("post", `${p}/api-keys/{keyId}/revoke`, "Revoke an API key (admin)", ApiKeySchema, ProjectKeyParams);
  op("get", `${p}/members`, "The project's members (admin)", MemberListSchema, ProjectParams);
  op("post", `${p}/members`, "Add a member, creating the account when new (admin)", MemberSchema, ProjectParams, AddMemberSchema);
  op("put", `${p}/members/{userId}`, "Change a member's role (admin)", MemberSchema, ProjectUserParams, SetRoleSchema);
  op("delete", `${p}/members/{userId}`, "Remove a member (admin)", MemberSchema, ProjectUserParams);
}
