import type { OpenAPIRegistry } from "@asteasolutions/zod-to-openapi";
import { AddOutboundAllowlistEntrySchema, OutboundAllowlistEntrySchema, OutboundAllowlistSchema, OutboundEntryParams } from "../contract/outbound";
import { errorResponse, json } from "./openapi-pieces";
import { ProjectParams } from "./params";

const errors = {
  400: errorResponse("Invalid input: not a host, *.domain, IP or CIDR"),
  401: errorResponse("No operator session"),
  403: errorResponse("forbidden (admins only), csrf_rejected"),
  404: errorResponse("Unknown project or entry"),
  409: errorResponse("already_exists: the pattern is on the allowlist"),
};

/** The outbound allowlist under the operator API (session cookie, admins). */
export function registerOutboundPaths(registry: OpenAPIRegistry): void {
  const path = "/api/v1/operator/projects/{projectId}/outbound-allowlist";
  const common = { tags: ["operators"], security: [{ operatorSession: [] }] };
  registry.registerPath({ ...common, method: "get", path, summary: "The project's outbound allowlist (admin)", request: { params: ProjectParams }, responses: { 200: json(OutboundAllowlistSchema, "OK"), ...errors } });
  registry.registerPath({
    ...common,
    method: "post",
    path,
    summary: "Admit a host, IP or CIDR for outbound calls (admin, audited)",
    request: { params: ProjectParams, body: { content: { "application/json": { schema: AddOutboundAllowlistEntrySchema } } } },
    responses: { 200: json(OutboundAllowlistEntrySchema, "The new entry"), ...errors },
  });
  registry.registerPath({
    ...common,
    method: "delete",
    path: `${path}/{entryId}`,
    summary: "Remove an entry (admin, audited)",
    request: { params: OutboundEntryParams },
    responses: { 200: json(OutboundAllowlistEntrySchema, "The removed entry"), ...errors },
  });
}
