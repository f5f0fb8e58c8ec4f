import { sameArgs } from "../../core/fingerprint";
import { isCachedOutcome } from "../../core/generations";
import type { ToolPolicy } from "../../core/policy";
import type { PreparedCall } from "../../core/prepare-call";
import type { CallRecord } from "../../core/record";
import type { ErrorCode } from "../../contract/v1";
import type { OperatorStore, ResendRequestRow } from "../../store/ports/operator-store";
import { AppError } from "../app-error";
import { type Actor, auditEntry } from "../operators/operator-audit";
import type { ResendService } from "./resend-service";
import { hashBypassToken } from "./resend-tokens";

/** A begin's resend ask: an approved request's token, or a reason to open a request. */
export interface BypassAsk {
  token?: string;
  reason?: string;
  actor: Actor;
}

export interface BypassInput {
  projectId: string;
  /** The begin's call: `key` is the derived key (generation 1). */
  call: PreparedCall;
  policy: ToolPolicy;
  /** The newest generation's record, or null. */
  current: CallRecord | null;
  ask: BypassAsk;
  now: number;
}

export type BypassVerdict =
  /** Nothing to bypass (no cached outcome): decide as usual; a token stays unused. */
  | { kind: "plan" }
  | { kind: "approval_required"; requestId: string }
  /** Authorised (a token consumed, or `bypass: allow`): raise the key's generation and run. */
  | { kind: "advance"; requestId: string | null };

/** What the gate asks before it lets a begin bypass a completed key (resend-routing.ts). */
export interface BypassGate {
  authorize(input: BypassInput): Promise<BypassVerdict>;
  /** The raised generation's call was claimed: link it to the request, for operators. */
  claimed(projectId: string, requestId: string, callId: string): Promise<void>;
}

export function bypassAsk(body: { bypassToken?: string; bypass?: { reason: string } }, actor: Actor): BypassAsk | undefined {
  if (body.bypassToken === undefined && body.bypass === undefined) return undefined;
  return { token: body.bypassToken, reason: body.bypass?.reason, actor };
}

/**
 * The bypass rules of DESIGN.md: a token is valid once, until it expires, for its request's key
 * and arguments only, and never under `bypass: never`; a begin that asks without a token opens
 * (or finds) a resend request under `approval`, and runs at once under `allow`. Every token use
 * and every refused one goes to the audit log.
 */
export class ResendBypassGate implements BypassGate {
  constructor(
    private readonly store: OperatorStore,
    private readonly resends: ResendService,
  ) {}

  async authorize(input: BypassInput): Promise<BypassVerdict> {
    if (input.ask.token !== undefined) return this.withToken(input, input.ask.token);
    const { projectId, call, policy, current, ask, now } = input;
    if (!isCachedOutcome(current, policy, now)) return { kind: "plan" };
    if (policy.bypass === "never") throw new AppError("bypass_forbidden", `tool "${call.tool}" has policy bypass: never — its calls are never resent`);
    if (policy.bypass === "allow") {
      const detail = { callId: current.id, key: call.key, generation: current.generation, reason: ask.reason ?? null };
      await this.store.appendAudit(auditEntry(ask.actor, projectId, "resend.bypass_allowed", { type: "call", id: current.id }, detail, now));
      return { kind: "advance", requestId: null };
    }
    const subject = { callId: current.id, tool: call.tool, key: call.key, argsFingerprint: call.argsFingerprint, args: call.argsText };
    const request = await this.resends.open(projectId, subject, ask.reason ?? "asked by begin", ask.actor, policy.bypass);
    return { kind: "approval_required", requestId: request.id };
  }

  private async withToken(input: BypassInput, token: string): Promise<BypassVerdict> {
    const { projectId, call, policy, current, ask, now } = input;
    const hash = hashBypassToken(token);
    const row = await this.store.findResendRequestByTokenHash(projectId, hash);
    const refuse = async (code: ErrorCode, message: string, request: ResendRequestRow | null): Promise<never> => {
      const target = request ? { type: "resend_request" as const, id: request.id } : { type: "bypass_token" as const, id: hash.slice(0, 16) };
      const detail = { code, key: call.key, argsFingerprint: call.argsFingerprint };
      await this.store.appendAudit(auditEntry(ask.actor, projectId, "resend.token_refused", target, detail, now));
      throw new AppError(code, message);
    };
    if (!row) return refuse("bypass_token_invalid", "the bypass token is unknown in this project", null);
    if (row.key !== call.key || !sameArgs(row.argsFingerprint, call)) {
      return refuse("bypass_token_mismatch", `the bypass token of ${row.id} is valid for its call's key and arguments only`, row);
    }
    if (row.usedAt !== null) return refuse("bypass_token_used", `the bypass token of ${row.id} was already used`, row);
    if (row.expiresAt <= now) return refuse("bypass_token_expired", `the bypass token of ${row.id} expired; ask for a new resend`, row);
    if (policy.bypass === "never") return refuse("bypass_forbidden", `tool "${call.tool}" has policy bypass: never`, row);
    if (!isCachedOutcome(current, policy, now)) return { kind: "plan" };

    const detail = { callId: current.id, key: call.key, fromGeneration: current.generation };
    const used = auditEntry(ask.actor, projectId, "resend.token_used", { type: "resend_request", id: row.id }, detail, now);
    if (!(await this.store.consumeResendToken(projectId, row.id, now, used))) {
      // Lost the race to a concurrent use of the same token (or it expired just now).
      const after = await this.store.findResendRequest(projectId, row.id);
      if (after?.usedAt != null) return refuse("bypass_token_used", `the bypass token of ${row.id} was already used`, row);
      return refuse("bypass_token_expired", `the bypass token of ${row.id} expired; ask for a new resend`, row);
    }
    return { kind: "advance", requestId: row.id };
  }

  async claimed(projectId: string, requestId: string, callId: string): Promise<void> {
    await this.store.setResendUsedCall(projectId, requestId, callId);
  }
}
