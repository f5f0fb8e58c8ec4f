import type { AuditEntryRow, AuditFilter, Page } from "../../ports/operator-store";
import { num, strOrNull } from "../../hot/shared/columns";

const AUDIT_LIST = `"id", "project_id", "at", "actor_type", "actor_id", "actor_label", "action", "target_type", "target_id", "detail", "ip", "user_agent"`;

/**
 * A page of a project's audit log, newest first, with only the filters given in the WHERE clause
 * (numbered placeholders, both providers). Actor and action match by prefix (`policy.` finds every
 * policy action, an email's first letters find its entries), with substr so that the collation
 * does not change what matches.
 */
export function auditListStatement(projectId: string, page: Page, filter: AuditFilter = {}): { sql: string; values: unknown[] } {
  const values: unknown[] = [];
  const add = (value: unknown) => {
    values.push(value);
    return `$${values.length}`;
  };
  const where = [`project_id = ${add(projectId)}`];
  if (page.before !== undefined) where.push(`id < ${add(page.before)}`);
  if (filter.actor !== undefined) {
    const length = add(filter.actor.length);
    const prefix = add(filter.actor);
    where.push(`(substr(COALESCE(actor_label, ''), 1, ${length}) = ${prefix} OR actor_id = ${prefix})`);
  }
  if (filter.action !== undefined) where.push(`substr(action, 1, ${add(filter.action.length)}) = ${add(filter.action)}`);
  if (filter.from !== undefined) where.push(`at >= ${add(filter.from)}`);
  if (filter.to !== undefined) where.push(`at < ${add(filter.to)}`);
  return { sql: `SELECT ${AUDIT_LIST} FROM audit_log WHERE ${where.join(" AND ")} ORDER BY id DESC LIMIT ${add(page.limit)}`, values };
}

export function rowToAudit(row: Record<string, unknown>): AuditEntryRow {
  return {
    id: String(row.id),
    projectId: strOrNull(row.project_id),
    at: num(row.at),
    actorType: String(row.actor_type) as AuditEntryRow["actorType"],
    actorId: strOrNull(row.actor_id),
    actorLabel: strOrNull(row.actor_label),
    action: String(row.action),
    targetType: String(row.target_type),
    targetId: String(row.target_id),
    detail: strOrNull(row.detail),
    ip: strOrNull(row.ip),
    userAgent: strOrNull(row.user_agent),
  };
}
