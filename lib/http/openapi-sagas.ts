import type { OpenAPIRegistry } from "@asteasolutions/zod-to-openapi";
import { AbortRunRequestSchema, CompensationBeginRequestSchema, ResolveCompensationSchema, RetryCompensationSchema, RunCompensationSchema } from "../contract/sagas";
import { OperatorQueueSchema } from "../contract/operator-queue";
import { BeginResponseSchema, CallStatusSchema, CheckReportRequestSchema } from "../contract/v1";
import { RaiseRunBudgetRequestSchema, RunBudgetSchema } from "../contract/budgets";
import { ProjectRunParams } from "./call-list-params";
import { errorResponse, json, jsonBody } from "./openapi-pieces";
import { QueueQuery } from "./range-query";
import { CallIdParams, ProjectParams, ProjectRunCallParams, RunCallParams, RunIdParams } from "./params";

const errors = {
  400: errorResponse("Invalid input: the zod issues are listed; nothing was stored"),
  401: errorResponse("No or bad credentials"),
  404: errorResponse("Unknown run step (another project's ids too)"),
  409: errorResponse("invalid_state: the run is not aborted, steps run in order, or the step is not failed"),
  503: errorResponse("Store unavailable: retry"),
};

/** Sagas: the agent's abort and plan runner endpoints, and the operators' run actions (abort, compensations, budget); status checks; the operators' queue. */
export function registerSagaPaths(registry: OpenAPIRegistry): void {
  const apiKey = [{ apiKey: [] }];
  const session = [{ operatorSession: [] }];
  const tags = ["sagas"];
  const run = "/api/v1/runs/{runId}";
  const opRun = "/api/v1/operator/projects/{projectId}/runs/{runId}";
  const plan = json(RunCompensationSchema, "The run's saga state and compensation plan");
  registry.registerPath({ method: "post", path: `${run}/abort`, summary: "Abort the run: its compensation plan starts (idempotent)", tags, security: apiKey, request: { params: RunIdParams, ...jsonBody(AbortRunRequestSchema) }, responses: { 200: plan, ...errors } });
  registry.registerPath({ method: "get", path: `${run}/compensation`, summary: "The run's saga state and compensation plan", tags, security: apiKey, request: { params: RunIdParams }, responses: { 200: plan, ...errors } });
  registry.registerPath({
    method: "post",
    path: `${run}/compensations/{callId}/begin`,
    summary: "Begin a step's undo: a gated call under `<key>:compensate` (decisions as for begin; complete it as any call)",
    tags,
    security: apiKey,
    request: { params: RunCallParams, ...jsonBody(CompensationBeginRequestSchema) },
    responses: { 200: json(BeginResponseSchema, "The gate's decision for the undo"), ...errors },
  });
  registry.registerPath({
    method: "post",
    path: "/api/v1/calls/{callId}/check",
    summary: "Status checks: the checker of a verify attempt could not tell; kept on the ledger (check unknown) and the call goes to the operators' queue",
    tags: ["status checks"],
    security: apiKey,
    request: { params: CallIdParams, ...jsonBody(CheckReportRequestSchema) },
    responses: { 200: json(CallStatusSchema, "The call, unchanged (still waiting for an outcome)"), ...errors, 409: errorResponse("lease_lost: not this attempt's lease") },
  });
  registry.registerPath({
    method: "get",
    path: "/api/v1/operator/projects/{projectId}/queue",
    summary: "The operators' queue: runs whose compensation failed, unknown status checks, unfinished operations, verify tally (viewer)",
    tags: ["operators"],
    security: session,
    request: { params: ProjectParams, query: QueueQuery },
    responses: { 200: json(OperatorQueueSchema, "What waits for a human"), ...errors },
  });
  registry.registerPath({ method: "get", path: `${opRun}/compensation`, summary: "The run's saga state (viewer)", tags, security: session, request: { params: ProjectRunParams }, responses: { 200: plan, ...errors } });
  registry.registerPath({ method: "post", path: `${opRun}/abort`, summary: "Abort a run with a reason (operator, audited)", tags, security: session, request: { params: ProjectRunParams, ...jsonBody(AbortRunRequestSchema) }, responses: { 200: plan, ...errors } });
  const budget = json(RunBudgetSchema, "The run's spend and the limits an operator set for it");
  registry.registerPath({ method: "get", path: `${opRun}/budget`, summary: "A run's spend against its budget (viewer)", tags: ["budgets"], security: session, request: { params: ProjectRunParams }, responses: { 200: budget, ...errors } });
  registry.registerPath({ method: "post", path: `${opRun}/budget`, summary: "Raise one run's budget; takes effect on its next begin (operator, audited)", tags: ["budgets"], security: session, request: { params: ProjectRunParams, ...jsonBody(RaiseRunBudgetRequestSchema) }, responses: { 200: budget, ...errors } });
  registry.registerPath({ method: "post", path: `${opRun}/compensations/{callId}/retry`, summary: "Let a failed compensation run again (operator, audited)", tags, security: session, request: { params: ProjectRunCallParams, ...jsonBody(RetryCompensationSchema) }, responses: { 200: plan, ...errors } });
  registry.registerPath({ method: "post", path: `${opRun}/compensations/{callId}/resolve`, summary: "Mark a failed compensation resolved by hand, with a note (operator, audited)", tags, security: session, request: { params: ProjectRunCallParams, ...jsonBody(ResolveCompensationSchema) }, responses: { 200: plan, ...errors } });
}
