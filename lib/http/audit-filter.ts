import type { z } from "zod";
import type { AuditFilterSchema } from "../contract/operator";
import type { AuditFilter } from "../store/ports/operator-store";

/** The audit query's filters as the store takes them (times in epoch ms). */
export function auditFilter(query: z.infer<typeof AuditFilterSchema>): AuditFilter {
  return {
    actor: query.actor,
    action: query.action,
    from: query.from === undefined ? undefined : Date.parse(query.from),
    to: query.to === undefined ? undefined : Date.parse(query.to),
  };
}
