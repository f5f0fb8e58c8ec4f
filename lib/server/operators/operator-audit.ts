import type { ClientInfo } from "../../http/client-info";
import type { AuditEntryRow } from "../../store/ports/operator-store";
import type { Principal } from "./api-keys";
import { newId } from "../ids";

/** Who did something, and from where: every audit entry names one. */
export interface Actor {
  type: "user" | "agent" | "system";
  /** The user's or the API key's id; null for the system. */
  id: string | null;
  /** The user's email, or the API key's id. */
  label: string | null;
  ip: string | null;
  userAgent: string | null;
}

export const SYSTEM_ACTOR: Actor = { type: "system", id: null, label: "idemgate", ip: null, userAgent: null };

export function agentActor(principal: Principal, client: ClientInfo): Actor {
  return { type: "agent", id: principal.apiKeyId, label: principal.apiKeyId, ...client };
}

export function userActor(user: { id: string; email: string }, client: ClientInfo): Actor {
  return { type: "user", id: user.id, label: user.email, ...client };
}

export interface AuditTarget {
  type: "resend_request" | "alert_channel" | "alert_rule" | "call" | "api_key" | "member" | "user" | "bypass_token" | "upstream" | "outbound_allowlist_entry" | "run" | "policy" | "preview";
  id: string;
}

export function auditEntry(
  actor: Actor,
  projectId: string | null,
  action: string,
  target: AuditTarget,
  detail: Record<string, unknown> | null,
  at: number,
): AuditEntryRow {
  return {
    id: newId("aud", at),
    projectId,
    at,
    actorType: actor.type,
    actorId: actor.id,
    actorLabel: actor.label,
    action,
    targetType: target.type,
    targetId: target.id,
    detail: detail ? JSON.stringify(detail) : null,
    ip: actor.ip,
    userAgent: actor.userAgent,
  };
}
