import type { OutboundAllowlistRepository, OutboundAllowlistRow } from "../../store/prisma/outbound-allowlist-repository";
import { AppError } from "../app-error";
import { newId } from "../ids";
import { type Actor, auditEntry } from "../operators/operator-audit";
import { parseAllowPattern } from "./allow-pattern";

/** An admin's edits to a project's outbound allowlist, each one audited. */
export class OutboundAllowlistService {
  constructor(
    private readonly repository: OutboundAllowlistRepository,
    private readonly clock: () => number = Date.now,
  ) {}

  list(projectId: string): Promise<OutboundAllowlistRow[]> {
    return this.repository.list(projectId);
  }

  async add(projectId: string, input: { pattern: string; note?: string | null }, actor: Actor): Promise<OutboundAllowlistRow> {
    const pattern = input.pattern.trim().toLowerCase();
    if (!parseAllowPattern(pattern)) {
      throw new AppError("invalid_input", "not a host, *.domain, IP or CIDR (optionally with :port)", {
        issues: [{ path: ["pattern"], message: "not a host, *.domain, IP or CIDR (optionally with :port)", code: "custom" }],
      });
    }
    const now = this.clock();
    const row: OutboundAllowlistRow = { id: newId("oal", now), projectId, pattern, note: input.note ?? null, createdAt: now, createdBy: actor.label };
    const audit = auditEntry(actor, projectId, "outbound_allowlist.added", { type: "outbound_allowlist_entry", id: row.id }, { pattern, note: row.note }, now);
    if (!(await this.repository.add(row, audit))) throw new AppError("already_exists", `${pattern} is already on the allowlist`);
    return row;
  }

  async remove(projectId: string, id: string, actor: Actor): Promise<OutboundAllowlistRow> {
    const now = this.clock();
    const removed = await this.repository.remove(projectId, id, (row) =>
      auditEntry(actor, projectId, "outbound_allowlist.removed", { type: "outbound_allowlist_entry", id }, { pattern: row.pattern }, now),
    );
    if (!removed) throw new AppError("not_found", `no allowlist entry ${id} in this project`);
    return removed;
  }
}
