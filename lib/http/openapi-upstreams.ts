import type { OpenAPIRegistry } from "@asteasolutions/zod-to-openapi";
import { CreateUpstreamSchema, McpToolListSchema, UpdateUpstreamSchema, UpstreamListSchema, UpstreamSchema } from "../contract/upstreams";
import { errorResponse, json, jsonBody } from "./openapi-pieces";
import { ProjectParams, UpstreamParams } from "./params";

const errors = {
  400: errorResponse("Invalid input: the zod issues are listed; nothing was stored"),
  401: errorResponse("No operator session"),
  403: errorResponse("Not an admin of the project, or a cross-site request"),
  404: errorResponse("Unknown project or upstream (another project's ids too)"),
  409: errorResponse("already_exists (the name is taken) or version_conflict"),
  503: errorResponse("Store unavailable: retry"),
};

/** The upstream registry (operator session with the admin role; registered after operatorSession). */
export function registerUpstreamPaths(registry: OpenAPIRegistry): void {
  const security = [{ operatorSession: [] }];
  const tags = ["upstreams"];
  const base = "/api/v1/operator/projects/{projectId}/upstreams";
  const one = `${base}/{upstreamId}`;
  registry.registerPath({ method: "get", path: base, summary: "The project's upstreams; secrets are never returned", tags, security, request: { params: ProjectParams }, responses: { 200: json(UpstreamListSchema, "The upstreams"), ...errors } });
  registry.registerPath({ method: "post", path: base, summary: "Add an MCP (Streamable HTTP or stdio) or HTTP upstream (audited); a URL the outbound allowlist refuses is a 400 on `url`", tags, security, request: { params: ProjectParams, ...jsonBody(CreateUpstreamSchema) }, responses: { 200: json(UpstreamSchema, "The new upstream"), ...errors } });
  registry.registerPath({ method: "get", path: one, summary: "One upstream", tags, security, request: { params: UpstreamParams }, responses: { 200: json(UpstreamSchema, "The upstream"), ...errors } });
  registry.registerPath({ method: "patch", path: one, summary: "Change an upstream; a secret is replaced (or removed with null), never read back (audited); a new URL must pass the outbound allowlist", tags, security, request: { params: UpstreamParams, ...jsonBody(UpdateUpstreamSchema) }, responses: { 200: json(UpstreamSchema, "The changed upstream"), ...errors } });
  registry.registerPath({
    method: "get",
    path: "/api/v1/operator/projects/{projectId}/mcp-tools",
    summary: "Every MCP upstream's tools with their annotations (untrusted hints), listed live; upstreams that cannot be listed are named",
    tags,
    security,
    request: { params: ProjectParams },
    responses: { 200: json(McpToolListSchema, "The tools and the upstreams not reached"), ...errors },
  });
  registry.registerPath({ method: "delete", path: one, summary: "Delete an upstream (audited)", tags, security, request: { params: UpstreamParams }, responses: { 200: json(UpstreamSchema, "The deleted upstream"), ...errors } });
}
