import type { AuditEntryRow } from "../ports/operator-store";
import type { Db } from "./client";

export interface OutboundAllowlistRow {
  id: string;
  projectId: string;
  pattern: string;
  note: string | null;
  createdAt: number;
  createdBy: string | null;
}

export interface OutboundAllowlistRepository {
  list(projectId: string): Promise<OutboundAllowlistRow[]>;
  /** False when the project already has this pattern. */
  add(row: OutboundAllowlistRow, audit: AuditEntryRow): Promise<boolean>;
  /** The removed row, or null when the project has no such entry. */
  remove(projectId: string, id: string, audit: (removed: OutboundAllowlistRow) => AuditEntryRow): Promise<OutboundAllowlistRow | null>;
}

type Stored = Omit<OutboundAllowlistRow, "createdAt"> & { createdAt: bigint };

function toRow(stored: Stored): OutboundAllowlistRow {
  return { ...stored, createdAt: Number(stored.createdAt) };
}

function auditData(audit: AuditEntryRow) {
  return { ...audit, at: BigInt(audit.at) };
}

/** The allowlist with Prisma Client; each change and its audit entry commit together. */
export class PrismaOutboundAllowlistRepository implements OutboundAllowlistRepository {
  constructor(private readonly prisma: Db) {}

  async list(projectId: string): Promise<OutboundAllowlistRow[]> {
    const rows = await this.prisma.outboundAllowlistEntry.findMany({ where: { projectId }, orderBy: { pattern: "asc" } });
    return rows.map(toRow);
  }

  async add(row: OutboundAllowlistRow, audit: AuditEntryRow): Promise<boolean> {
    const added = this.prisma.$transaction(async (tx) => {
      // Checked inside the transaction instead of catching P2002, which costs Postgres a connection.
      const existing = await tx.outboundAllowlistEntry.findUnique({ where: { projectId_pattern: { projectId: row.projectId, pattern: row.pattern } } });
      if (existing) return false;
      await tx.outboundAllowlistEntry.create({ data: { ...row, createdAt: BigInt(row.createdAt) } });
      await tx.auditEntry.create({ data: auditData(audit) });
      return true;
    });
    // Two admins adding the same pattern at once on Postgres: the unique constraint decides.
    return added.catch((error: unknown) => {
      if ((error as { code?: string }).code === "P2002") return false;
      throw error;
    });
  }

  async remove(projectId: string, id: string, audit: (removed: OutboundAllowlistRow) => AuditEntryRow): Promise<OutboundAllowlistRow | null> {
    return this.prisma.$transaction(async (tx) => {
      const existing = await tx.outboundAllowlistEntry.findFirst({ where: { id, projectId } });
      if (!existing) return null;
      await tx.outboundAllowlistEntry.delete({ where: { id } });
      const removed = toRow(existing);
      await tx.auditEntry.create({ data: auditData(audit(removed)) });
      return removed;
    });
  }
}
