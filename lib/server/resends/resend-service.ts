import { baseKeyOf, isCompleted } from "../../core/generations";
import type { BypassMode } from "../../core/policy";
import type { OperatorStore, Page, ResendRequestRow, ResendStatus } from "../../store/ports/operator-store";
import type { GateStore } from "../../store/ports/gate-store";
import { AppError } from "../app-error";
import { newId } from "../ids";
import { type Actor, auditEntry } from "../operators/operator-audit";
import type { PolicySource } from "../policies/policy-source";
import { mintBypassToken } from "./resend-tokens";

/** How long a request waits for a decision before it expires. */
export const PENDING_TTL_MS = 24 * 60 * 60 * 1000;

/** What a resend request is about: a completed call, its key and its arguments. */
export interface ResendSubject {
  callId: string;
  tool: string;
  /** The derived key, without generation suffix. */
  key: string;
  argsFingerprint: string;
  args: string | null;
}

export interface ResendServiceOptions {
  tokenTtlMs: number;
  clock?: () => number;
}

/**
 * Resend requests (DESIGN.md "Human-approved resends"): asked for by an agent or an operator,
 * decided by an operator who did not ask, and — once approved — a single-use bypass token minted
 * for the agent that asked, the first time it reads the request. The token is never stored, only
 * its hash, and it is valid for the request's key and arguments alone (resend-bypass.ts).
 */
export class ResendService {
  private readonly clock: () => number;

  constructor(
    private readonly store: OperatorStore,
    private readonly gate: GateStore,
    private readonly policies: PolicySource,
    private readonly options: ResendServiceOptions,
  ) {
    this.clock = options.clock ?? Date.now;
  }

  /** `POST /calls/{id}/resend` and the operator's request: names a completed call of the project. */
  async requestForCall(projectId: string, callId: string, reason: string, actor: Actor): Promise<ResendRequestRow> {
    const record = await this.gate.findRecordById(projectId, callId);
    if (!record) throw new AppError("not_found", `no call ${callId} in this project`);
    if (!isCompleted(record)) {
      throw new AppError("invalid_state", `call ${callId} is ${record.state}: only a completed call can be resent`);
    }
    const { policy } = await this.policies.forTool(projectId, record.tool);
    const subject = { callId: record.id, tool: record.tool, key: baseKeyOf(record.key), argsFingerprint: record.argsFingerprint, args: record.args };
    return this.open(projectId, subject, reason, actor, policy.bypass);
  }

  /**
   * The asker's open request for this key and these arguments, or a new one: an agent retrying
   * its ask (or its begin) must not file a request per attempt. Under `bypass: allow` the request
   * is approved at once; under `never` there is nothing to ask for.
   */
  async open(projectId: string, subject: ResendSubject, reason: string, actor: Actor, bypass: BypassMode): Promise<ResendRequestRow> {
    if (bypass === "never") throw neverBypassed(subject.tool);
    const now = this.clock();
    const requesterId = actor.id ?? "system";
    const existing = await this.store.findOpenResendRequest(projectId, subject.key, subject.argsFingerprint, requesterId, now);
    if (existing) return existing;

    const autoApproved = bypass === "allow";
    const row: ResendRequestRow = {
      id: newId("rr", now),
      projectId,
      ...subject,
      reason,
      requesterType: actor.type === "user" ? "user" : "agent",
      requesterId,
      requesterLabel: actor.label ?? requesterId,
      status: autoApproved ? "approved" : "pending",
      deciderType: autoApproved ? "policy" : null,
      deciderId: autoApproved ? "bypass:allow" : null,
      deciderLabel: autoApproved ? "policy (bypass: allow)" : null,
      note: null,
      decidedAt: autoApproved ? now : null,
      expiresAt: now + (autoApproved ? this.options.tokenTtlMs : PENDING_TTL_MS),
      tokenHash: null,
      tokenIssuedAt: null,
      tokenIssuedTo: null,
      usedAt: null,
      usedCallId: null,
      createdAt: now,
    };
    const detail = { callId: subject.callId, tool: subject.tool, key: subject.key, argsFingerprint: subject.argsFingerprint, reason, autoApproved };
    await this.store.insertResendRequest(row, auditEntry(actor, projectId, "resend.requested", target(row.id), detail, now));
    return row;
  }

  /**
   * An agent reads a request. The token is minted on the first read of an approved request by
   * the key that asked (or, for an operator's request, by any key of the project): the CAS on
   * `token_hash IS NULL` makes that happen once, so two concurrent reads cannot both get one.
   */
  async readByAgent(projectId: string, id: string, apiKeyId: string, actor: Actor): Promise<{ row: ResendRequestRow; token?: string }> {
    const row = await this.getOrThrow(projectId, id);
    const now = this.clock();
    const mayReceive = row.requesterType === "user" || row.requesterId === apiKeyId;
    if (row.status !== "approved" || row.tokenHash !== null || row.usedAt !== null || row.expiresAt <= now || !mayReceive) {
      return { row };
    }
    const { token, hash } = mintBypassToken();
    const audit = auditEntry(actor, projectId, "resend.token_issued", target(id), { expiresAt: row.expiresAt }, now);
    if (await this.store.issueResendToken(projectId, id, hash, apiKeyId, now, audit)) {
      return { row: { ...row, tokenHash: hash, tokenIssuedAt: now, tokenIssuedTo: apiKeyId }, token };
    }
    return { row: await this.getOrThrow(projectId, id) };
  }

  async getOrThrow(projectId: string, id: string): Promise<ResendRequestRow> {
    const row = await this.store.findResendRequest(projectId, id);
    if (!row) throw new AppError("not_found", `no resend request ${id} in this project`);
    return row;
  }

  list(projectId: string, status: ResendStatus | null, page: Page): Promise<ResendRequestRow[]> {
    return this.store.listResendRequests(projectId, status, page);
  }

  /**
   * An operator approves or denies. The rules that cannot be bent live here, not in the routes:
   * nobody approves their own request, a `bypass: never` tool is never approved, and of two
   * concurrent decisions (a double click) the store's CAS on `status = 'pending'` lets one win.
   */
  async decide(
    projectId: string,
    id: string,
    decision: "approved" | "denied",
    input: { note: string | null; ttlSeconds?: number },
    actor: Actor,
  ): Promise<ResendRequestRow> {
    const row = await this.getOrThrow(projectId, id);
    const now = this.clock();
    if (row.status !== "pending") throw alreadyDecided(row);
    if (row.expiresAt <= now) throw new AppError("invalid_state", `resend request ${id} expired undecided`);
    if (decision === "approved") {
      if (row.requesterType === "user" && row.requesterId === actor.id) {
        await this.store.appendAudit(auditEntry(actor, projectId, "resend.approve_refused", target(id), { rule: "self_approval" }, now));
        throw new AppError("self_approval", "you asked for this resend: another operator must approve it");
      }
      const { policy } = await this.policies.forTool(projectId, row.tool);
      if (policy.bypass === "never") throw neverBypassed(row.tool);
    }
    const ttlMs = input.ttlSeconds !== undefined ? input.ttlSeconds * 1000 : this.options.tokenTtlMs;
    const expiresAt = decision === "approved" ? now + ttlMs : row.expiresAt;
    const detail = { note: input.note, ...(decision === "approved" ? { tokenExpiresAt: expiresAt } : {}) };
    const applied = await this.store.decideResendRequest(
      projectId,
      id,
      { status: decision, deciderType: "user", deciderId: actor.id!, deciderLabel: actor.label!, note: input.note, decidedAt: now, expiresAt },
      auditEntry(actor, projectId, `resend.${decision}`, target(id), detail, now),
    );
    const after = await this.getOrThrow(projectId, id);
    if (!applied) throw after.status === "pending" ? new AppError("invalid_state", `resend request ${id} expired undecided`) : alreadyDecided(after);
    return after;
  }
}

const target = (id: string) => ({ type: "resend_request" as const, id });

function alreadyDecided(row: ResendRequestRow): AppError {
  return new AppError("already_decided", `resend request ${row.id} was already ${row.status} by ${row.deciderLabel ?? "someone"}`);
}

function neverBypassed(tool: string): AppError {
  return new AppError("bypass_forbidden", `tool "${tool}" has policy bypass: never — its calls are never resent`);
}
