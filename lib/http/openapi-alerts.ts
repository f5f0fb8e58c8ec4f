import type { OpenAPIRegistry } from "@asteasolutions/zod-to-openapi";
import {
  AlertChannelParams,
  AlertChannelSchema,
  AlertDeliveriesSchema,
  AlertDeliverySchema,
  AlertRuleParams,
  AlertRuleSchema,
  AlertsSchema,
  CreateAlertChannelSchema,
  CreateAlertRuleSchema,
  CreatedAlertChannelSchema,
} from "../contract/alerts";
import { errorResponse, json, jsonBody } from "./openapi-pieces";
import { ProjectParams } from "./params";

const errors = {
  400: errorResponse("Invalid input, or a URL outside the project's outbound allowlist"),
  401: errorResponse("No operator session"),
  403: errorResponse("forbidden (admins only), csrf_rejected"),
  404: errorResponse("Unknown project, channel or rule"),
};

/** Alerts under the operator API (session cookie, admins): channels, rules, test alerts, the delivery log. */
export function registerAlertPaths(registry: OpenAPIRegistry): void {
  const path = "/api/v1/operator/projects/{projectId}/alerts";
  const common = { tags: ["operators"], security: [{ operatorSession: [] }] };
  registry.registerPath({ ...common, method: "get", path, summary: "Alert channels (no secrets) and rules (admin)", request: { params: ProjectParams }, responses: { 200: json(AlertsSchema, "OK"), ...errors } });
  registry.registerPath({
    ...common,
    method: "post",
    path: `${path}/channels`,
    summary: "Add a Slack, PagerDuty or signed webhook channel (admin, audited); its secrets are write-only",
    request: { params: ProjectParams, ...jsonBody(CreateAlertChannelSchema) },
    responses: { 200: json(CreatedAlertChannelSchema, "The channel; a generated signing secret, this once"), ...errors },
  });
  registry.registerPath({ ...common, method: "delete", path: `${path}/channels/{channelId}`, summary: "Remove a channel (admin, audited)", request: { params: AlertChannelParams }, responses: { 200: json(AlertChannelSchema, "The removed channel"), ...errors } });
  registry.registerPath({ ...common, method: "post", path: `${path}/channels/{channelId}/test`, summary: "Queue a test alert to the channel (admin)", request: { params: AlertChannelParams }, responses: { 200: json(AlertDeliverySchema, "The queued delivery"), ...errors } });
  registry.registerPath({ ...common, method: "post", path: `${path}/rules`, summary: "Send a condition to channels (admin, audited)", request: { params: ProjectParams, ...jsonBody(CreateAlertRuleSchema) }, responses: { 200: json(AlertRuleSchema, "The rule"), ...errors } });
  registry.registerPath({ ...common, method: "delete", path: `${path}/rules/{ruleId}`, summary: "Remove a rule (admin, audited)", request: { params: AlertRuleParams }, responses: { 200: json(AlertRuleSchema, "The removed rule"), ...errors } });
  registry.registerPath({ ...common, method: "get", path: `${path}/deliveries`, summary: "The latest 100 deliveries, each attempt with its status code (admin)", request: { params: ProjectParams }, responses: { 200: json(AlertDeliveriesSchema, "OK"), ...errors } });
}
