import { OpenAPIRegistry, OpenApiGeneratorV31 } from "@asteasolutions/zod-to-openapi";
import {
  BeginRequestSchema,
  BeginResponseSchema,
  CallStatusSchema,
  CompleteRequestSchema,
  ErrorResponseSchema,
  HeartbeatRequestSchema,
  HeartbeatResponseSchema,
} from "../contract/v1";
import { registerAdminPaths } from "./openapi-admin";
import { registerAuditPaths } from "./openapi-audit";
import { registerCallExplorerPaths } from "./openapi-calls";
import { registerInsightPaths } from "./openapi-insights";
import { registerGatewayPaths } from "./openapi-gateway";
import { registerAlertPaths } from "./openapi-alerts";
import { registerOutboundPaths } from "./openapi-outbound";
import { TOKEN_BEGIN_ERRORS, registerPreviewPaths } from "./openapi-previews";
import { registerResendPaths } from "./openapi-resends";
import { registerSagaPaths } from "./openapi-sagas";
import { registerUpstreamPaths } from "./openapi-upstreams";
import { CallIdParams } from "./params";
import { json } from "./openapi-pieces";


const errors = {
  400: json(ErrorResponseSchema, "Invalid input: the zod issues are listed"),
  401: json(ErrorResponseSchema, "No or bad API key"),
  404: json(ErrorResponseSchema, "Unknown call (or another project's)"),
  413: json(ErrorResponseSchema, "Body larger than 1 MiB"),
  503: json(ErrorResponseSchema, "Store unavailable or contended: retry the same request"),
};

/** The contract as OpenAPI 3.1, generated from the same zod schemas the routes parse with. */
export function buildOpenApiDocument() {
  const registry = new OpenAPIRegistry();
  registry.registerComponent("securitySchemes", "apiKey", { type: "http", scheme: "bearer", description: "Project API key (ig_…)" });
  const security = [{ apiKey: [] }];

  registry.registerPath({
    method: "post",
    path: "/api/v1/calls/begin",
    summary: "Ask before running a side-effecting tool",
    security,
    request: { body: { content: { "application/json": { schema: BeginRequestSchema } } } },
    responses: { 200: json(BeginResponseSchema, "The decision"), ...errors, ...TOKEN_BEGIN_ERRORS },
  });
  registry.registerPath({
    method: "post",
    path: "/api/v1/calls/{callId}/complete",
    summary: "Report the outcome of an executed call",
    security,
    request: { params: CallIdParams, body: { content: { "application/json": { schema: CompleteRequestSchema } } } },
    responses: {
      200: json(CallStatusSchema, "The call after completion"),
      409: json(ErrorResponseSchema, "lease_lost: another attempt owns the call; the effect may be a duplicate"),
      ...errors,
    },
  });
  registry.registerPath({
    method: "post",
    path: "/api/v1/calls/{callId}/heartbeat",
    summary: "Extend the lease of a long-running tool",
    security,
    request: { params: CallIdParams, body: { content: { "application/json": { schema: HeartbeatRequestSchema } } } },
    responses: { 200: json(HeartbeatResponseSchema, "The new lease expiry"), 409: json(ErrorResponseSchema, "lease_lost"), ...errors },
  });
  registry.registerPath({
    method: "get",
    path: "/api/v1/calls/{callId}",
    summary: "A call's status",
    security,
    request: { params: CallIdParams },
    responses: { 200: json(CallStatusSchema, "The call"), ...errors },
  });

  registerAdminPaths(registry);
  registerInsightPaths(registry);
  registerResendPaths(registry);
  registerCallExplorerPaths(registry);
  registerAuditPaths(registry);
  registerUpstreamPaths(registry);
  registerOutboundPaths(registry);
  registerAlertPaths(registry);
  registerGatewayPaths(registry);
  registerSagaPaths(registry);
  registerPreviewPaths(registry);

  return new OpenApiGeneratorV31(registry.definitions).generateDocument({
    openapi: "3.1.0",
    info: {
      title: "Idemgate agent API",
      version: "1.0.0",
      description: "The idempotency gate for AI-agent tool calls: begin → run → complete; duplicates replay.",
    },
  });
}
