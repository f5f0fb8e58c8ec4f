import type { PreviewState, PreviewStatus } from "../../core/plan-preview";
import type { AuditEntryRow } from "../ports/operator-store";
import type { Db } from "./client";

export interface PreviewRow extends PreviewState {
  projectId: string;
  tool: string;
  runId: string;
  args: string | null;
  summary: string;
  affected: string[];
  decidedBy: string | null;
  decisionNote: string | null;
  decidedAt: number | null;
  createdAt: number;
}

type Stored = Awaited<ReturnType<Db["preview"]["findFirstOrThrow"]>>;

const num = (v: bigint | null): number | null => (v === null ? null : Number(v));

function fromStored(row: Stored): PreviewRow {
  return {
    id: row.id,
    projectId: row.projectId,
    key: row.key,
    argsFingerprint: row.argsFingerprint,
    tool: row.tool,
    runId: row.runId,
    args: row.args,
    summary: row.summary,
    affected: JSON.parse(row.affected) as string[],
    mode: row.mode as PreviewRow["mode"],
    status: row.status as PreviewStatus,
    requestedBy: row.requestedBy,
    decidedBy: row.decidedBy,
    decisionNote: row.decisionNote,
    decidedAt: num(row.decidedAt),
    tokenExpiresAt: num(row.tokenExpiresAt),
    usedAt: num(row.usedAt),
    createdAt: Number(row.createdAt),
    expiresAt: Number(row.expiresAt),
    version: row.version,
  };
}

/** Previews through Prisma Client (off the hot path except one token lookup per previewed begin). */
export class PreviewRepository {
  constructor(private readonly prisma: Db) {}

  async create(row: PreviewRow, tokenHash: string | null): Promise<void> {
    await this.prisma.preview.create({
      data: {
        ...row,
        affected: JSON.stringify(row.affected),
        tokenHash,
        decidedAt: row.decidedAt === null ? null : BigInt(row.decidedAt),
        tokenExpiresAt: row.tokenExpiresAt === null ? null : BigInt(row.tokenExpiresAt),
        usedAt: null,
        createdAt: BigInt(row.createdAt),
        expiresAt: BigInt(row.expiresAt),
      },
    });
  }

  async get(projectId: string, id: string): Promise<PreviewRow | null> {
    const row = await this.prisma.preview.findFirst({ where: { projectId, id } });
    return row ? fromStored(row) : null;
  }

  /**
   * The call's own approval still standing: the newest preview under `approve` for exactly this key
   * and args fingerprint that has not run and has not expired (pending, approved, or denied).
   */
  async findStanding(projectId: string, key: string, argsFingerprint: string, now: number): Promise<PreviewRow | null> {
    const row = await this.prisma.preview.findFirst({
      where: { projectId, key, argsFingerprint, usedAt: null, mode: "approve", status: { in: ["pending", "approved", "denied"] }, expiresAt: { gt: BigInt(now) } },
      orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    });
    return row ? fromStored(row) : null;
  }

  async byTokenHash(projectId: string, tokenHash: string): Promise<PreviewRow | null> {
    const row = await this.prisma.preview.findFirst({ where: { projectId, tokenHash } });
    return row ? fromStored(row) : null;
  }

  async list(projectId: string, status: PreviewStatus | undefined, limit: number): Promise<PreviewRow[]> {
    const rows = await this.prisma.preview.findMany({ where: { projectId, ...(status ? { status } : {}) }, orderBy: { createdAt: "desc" }, take: limit });
    return rows.map(fromStored);
  }

  /** Replaces the token (the old one stops working); false when the preview moved on. */
  async issueToken(preview: PreviewRow, tokenHash: string, tokenExpiresAt: number): Promise<boolean> {
    const updated = await this.prisma.preview.updateMany({
      where: { id: preview.id, version: preview.version },
      data: { tokenHash, tokenExpiresAt: BigInt(tokenExpiresAt), version: preview.version + 1 },
    });
    return updated.count === 1;
  }

  /** Single use: only the first begin with the token flips it; false for everyone after. */
  async markUsed(preview: PreviewRow, at: number): Promise<boolean> {
    const updated = await this.prisma.preview.updateMany({
      where: { id: preview.id, version: preview.version, usedAt: null },
      data: { status: "used", usedAt: BigInt(at), version: preview.version + 1 },
    });
    return updated.count === 1;
  }

  async decide(preview: PreviewRow, status: "approved" | "denied", by: string, note: string, at: number, audit: AuditEntryRow): Promise<boolean> {
    return this.prisma.$transaction(async (tx) => {
      const updated = await tx.preview.updateMany({
        where: { id: preview.id, version: preview.version, status: "pending" },
        data: { status, decidedBy: by, decisionNote: note, decidedAt: BigInt(at), version: preview.version + 1 },
      });
      if (updated.count !== 1) return false;
      await tx.auditEntry.create({ data: { ...audit, at: BigInt(audit.at) } });
      return true;
    });
  }
}
