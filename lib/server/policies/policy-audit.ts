import type { OperatorStore } from "../../store/ports/operator-store";
import { type Actor, auditEntry } from "../operators/operator-audit";
import type { Revision } from "./policy-service";

/**
 * A policy save or restore, mirrored into the unified audit log: who, the reason, and the field
 * diff. The revision (policy history) is the record of the change and is committed first, by
 * another store; if this copy cannot be written, the change stands and the failure is logged,
 * because answering an error would invite a retry that saves a second revision.
 */
export async function auditPolicyChange(store: OperatorStore, actor: Actor, projectId: string, revision: Revision): Promise<void> {
  const action = revision.restoredFrom === null ? "policy.updated" : "policy.restored";
  const detail = {
    tool: revision.tool,
    version: revision.version,
    reason: revision.reason,
    ...(revision.restoredFrom === null ? {} : { restoredFrom: revision.restoredFrom }),
    changes: revision.changes.map((c) => ({ path: c.path, before: c.before ?? null, after: c.after ?? null })),
  };
  try {
    await store.appendAudit(auditEntry(actor, projectId, action, { type: "policy", id: revision.tool }, detail, revision.at));
  } catch (error) {
    console.error(`[idemgate] policy ${revision.tool} v${revision.version} saved, but its audit log entry failed:`, error);
  }
}

/** Who changed a policy through the admin API: the signed-in admin, or the holder of the admin token. */
export function policyActor(operator: { id: string; email: string } | undefined, client: { ip: string | null; userAgent: string | null }): Actor {
  return operator ? { type: "user", id: operator.id, label: operator.email, ...client } : { type: "system", id: null, label: "admin token", ...client };
}
