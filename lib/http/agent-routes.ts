import { CreatePreviewRequestSchema, PreviewSchema } from "../contract/previews";
import { CreateResendRequestSchema, ResendRequestSchema } from "../contract/resends";
import {
  BeginRequestSchema,
  BeginResponseSchema,
  CallStatusSchema,
  CheckReportRequestSchema,
  CompleteRequestSchema,
  HeartbeatRequestSchema,
  HeartbeatResponseSchema,
} from "../contract/v1";
import { services } from "../server/composition-root";
import { agentActor } from "../server/operators/operator-audit";
import { bypassAsk } from "../server/resends/resend-bypass";
import { clientInfo } from "./client-info";
import { RequestIdParams } from "./operator-params";
import { toWireResend } from "./operator-wire";
import { CallIdParams } from "./params";
import { toPreviewInput, toWirePreview } from "./preview-wire";
import type { RouteSpec } from "./with-api-route";
import { toBeginInput, toCallStatus, toCompleteOutcome, toHeartbeatResponse, toWireDecision } from "./wire";

/**
 * The agent API's routes (project API key), declared once: app/api/v1/calls/… and
 * app/api/v1/resend-requests/… serve them through withApiRoute, and the lean agent path
 * (agent-api.ts) serves the same specs without Next.js's router.
 */
const route = <B, P>(spec: RouteSpec<B, P, "apiKey">) => spec;

/** POST /api/v1/calls/begin — may this tool call run? */
export const beginRoute = route({
  body: BeginRequestSchema,
  response: BeginResponseSchema,
  handler: async ({ req, body, principal }) =>
    toWireDecision(
      await services().gate.service.begin(principal.projectId, {
        ...toBeginInput(body),
        bypass: bypassAsk(body, agentActor(principal, clientInfo(req))),
      }),
    ),
});

/** GET /api/v1/calls/{callId} — a call's status, for async tools and pollers. */
export const callStatusRoute = route({
  params: CallIdParams,
  response: CallStatusSchema,
  handler: async ({ params, principal }) => toCallStatus(await services().gate.service.getRecordOrThrow(principal.projectId, params.callId)),
});

/** POST /api/v1/calls/{callId}/complete — report the outcome of an executed call. */
export const completeRoute = route({
  params: CallIdParams,
  body: CompleteRequestSchema,
  response: CallStatusSchema,
  handler: async ({ body, params, principal }) =>
    toCallStatus(await services().gate.service.complete(principal.projectId, params.callId, body.leaseToken ?? null, toCompleteOutcome(body))),
});

/** POST /api/v1/calls/{callId}/check — a status check could not tell; recorded on the ledger for operators. */
export const checkRoute = route({
  params: CallIdParams,
  body: CheckReportRequestSchema,
  response: CallStatusSchema,
  handler: async ({ body, params, principal }) =>
    toCallStatus(await services().gate.service.reportUnknownCheck(principal.projectId, params.callId, body.leaseToken, body.reason ?? null)),
});

/** POST /api/v1/calls/{callId}/heartbeat — keep a long-running lease. */
export const heartbeatRoute = route({
  params: CallIdParams,
  body: HeartbeatRequestSchema,
  response: HeartbeatResponseSchema,
  handler: async ({ body, params, principal }) =>
    toHeartbeatResponse(await services().gate.service.heartbeat(principal.projectId, params.callId, body.leaseToken, body.extendSeconds)),
});

/** POST /api/v1/calls/{callId}/resend — ask a human to let a completed call run once more. */
export const resendRoute = route({
  params: CallIdParams,
  body: CreateResendRequestSchema,
  response: ResendRequestSchema,
  handler: async ({ req, params, body, principal }) => {
    const actor = agentActor(principal, clientInfo(req));
    return toWireResend(await services().operators.resends.requestForCall(principal.projectId, params.callId, body.reason, actor), Date.now());
  },
});

/** POST /api/v1/calls/preview — store a dry run's preview of a call. */
export const previewRoute = route({
  body: CreatePreviewRequestSchema,
  response: PreviewSchema,
  handler: async ({ req, body, principal }) =>
    toWirePreview(await services().previews.create(principal.projectId, toPreviewInput(body), agentActor(principal, clientInfo(req)))),
});

/** GET /api/v1/resend-requests/{requestId} — the request's status; once approved, its bypass token, shown once to the key that asked. */
export const resendRequestRoute = route({
  params: RequestIdParams,
  response: ResendRequestSchema,
  handler: async ({ req, params, principal }) => {
    const actor = agentActor(principal, clientInfo(req));
    const { row, token } = await services().operators.resends.readByAgent(principal.projectId, params.requestId, principal.apiKeyId, actor);
    return toWireResend(row, Date.now(), token);
  },
});
