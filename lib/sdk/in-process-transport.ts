import { z } from "zod";
import { BeginRequestSchema, CheckReportRequestSchema, CompleteRequestSchema, HeartbeatRequestSchema } from "../contract/v1";
import { ERROR_STATUS } from "../http/errors";
import { toBeginInput, toCallStatus, toCompleteOutcome, toHeartbeatResponse, toWireDecision } from "../http/wire";
import { AppError } from "../server/app-error";
import { GateService } from "../server/gate/gate-service";
import type { Actor } from "../server/operators/operator-audit";
import { bypassAsk } from "../server/resends/resend-bypass";
import type { ResendService } from "../server/resends/resend-service";
import { type PolicySource, defaultPolicies } from "../server/policies/policy-source";
import { type GateStore, StoreUnavailableError } from "../store/ports/gate-store";
import { GateError } from "./errors";
import type { BeginRequest, CheckReportRequest, CompleteRequest, GateTransport, HeartbeatRequest } from "./types";

export interface InProcessOptions {
  projectId: string;
  /** A GateService to share, or a store to build one over (with `policies`, default: the defaults). */
  service?: GateService;
  store?: GateStore;
  policies?: PolicySource;
  /**
   * Resends: who asks (the API key a resend request is filed for and handed its token, and the
   * audit log's actor). Without it a call that asks for a resend is refused as invalid input.
   */
  caller?: { apiKeyId: string; actor: Actor };
  /** Resends: where an approved request's token is read (the gate's resend service). */
  resends?: ResendService;
}

/**
 * The same engine without HTTP: for embedding the gate in an agent process and for benchmarks.
 * Requests are validated with the wire schemas and answers converted to the wire form, so callers
 * cannot tell it from the HTTP transport; service errors become GateErrors through the same table
 * the HTTP layer uses.
 */
export class InProcessTransport implements GateTransport {
  readonly service: GateService;
  private readonly projectId: string;
  private readonly caller: InProcessOptions["caller"];
  private readonly resends: ResendService | undefined;

  constructor(options: InProcessOptions) {
    if (options.service) this.service = options.service;
    else if (options.store) this.service = new GateService(options.store, options.policies ?? defaultPolicies);
    else throw new Error("inProcess needs a `service` or a `store`");
    this.projectId = options.projectId;
    this.caller = options.caller;
    this.resends = options.resends;
  }

  begin(request: BeginRequest) {
    return guard(async () => {
      const body = BeginRequestSchema.parse(request);
      const asksBypass = body.bypass !== undefined || body.bypassToken !== undefined;
      if (asksBypass && !this.caller) throw new AppError("invalid_input", "a resend through an in-process gate needs `inProcess.caller` (who asks)");
      const bypass = asksBypass && this.caller ? bypassAsk(body, this.caller.actor) : undefined;
      const decision = await this.service.begin(this.projectId, { ...toBeginInput(body), ...(bypass ? { bypass } : {}) });
      return toWireDecision(decision);
    });
  }

  resendToken(requestId: string) {
    return guard(async () => {
      if (!this.resends || !this.caller) return null;
      const { token } = await this.resends.readByAgent(this.projectId, requestId, this.caller.apiKeyId, this.caller.actor);
      return token ?? null;
    });
  }

  complete(callId: string, request: CompleteRequest) {
    return guard(async () => {
      const body = CompleteRequestSchema.parse(request);
      return toCallStatus(await this.service.complete(this.projectId, callId, body.leaseToken ?? null, toCompleteOutcome(body)));
    });
  }

  reportCheck(callId: string, request: CheckReportRequest) {
    return guard(async () => {
      const body = CheckReportRequestSchema.parse(request);
      return toCallStatus(await this.service.reportUnknownCheck(this.projectId, callId, body.leaseToken, body.reason ?? null));
    });
  }

  heartbeat(callId: string, request: HeartbeatRequest) {
    return guard(async () => {
      const body = HeartbeatRequestSchema.parse(request);
      return toHeartbeatResponse(await this.service.heartbeat(this.projectId, callId, body.leaseToken, body.extendSeconds));
    });
  }

  status(callId: string) {
    return guard(async () => toCallStatus(await this.service.getRecordOrThrow(this.projectId, callId)));
  }
}

async function guard<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw toGateError(error);
  }
}

function toGateError(error: unknown): GateError {
  if (error instanceof AppError) {
    const { status, retryable } = ERROR_STATUS[error.code];
    const retryAfterMs = error.details.retryAfterSeconds !== undefined ? error.details.retryAfterSeconds * 1000 : undefined;
    return new GateError(error.code, error.message, retryable, { status, cause: error, ...(retryAfterMs !== undefined ? { retryAfterMs } : {}) });
  }
  if (error instanceof z.ZodError) {
    return new GateError("invalid_input", `the request does not match the contract: ${z.prettifyError(error)}`, false, {
      status: 400,
      cause: error,
    });
  }
  if (error instanceof StoreUnavailableError) {
    return new GateError("store_unavailable", error.message, true, { status: 503, retryAfterMs: 1_000, cause: error });
  }
  return new GateError("internal", error instanceof Error ? error.message : String(error), true, { status: 500, cause: error });
}
