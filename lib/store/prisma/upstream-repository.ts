import type { AuditEntryRow } from "../ports/operator-store";
import type { Db } from "./client";

/** A stored upstream; `secretEnc` is ciphertext and leaves this layer only towards the secret box. */
export interface UpstreamRow {
  id: string;
  projectId: string;
  name: string;
  kind: "mcp" | "http";
  transport: "streamable_http" | "stdio" | null;
  url: string | null;
  command: string | null;
  args: string[];
  headers: Record<string, string>;
  secretHeader: string | null;
  secretEnc: string | null;
  /** http only: the header carrying the gate's key upstream; null for the default. */
  idempotencyHeader: string | null;
  /** http only: the largest response stored for replays; null for the default. */
  maxStoredBytes: number | null;
  createdAt: number;
  updatedAt: number;
  version: number;
}

export type UpstreamChange = Partial<Pick<UpstreamRow, "url" | "command" | "args" | "headers" | "secretHeader" | "secretEnc" | "idempotencyHeader" | "maxStoredBytes">>;

type Stored = Awaited<ReturnType<Db["upstream"]["findFirstOrThrow"]>>;

function fromStored(row: Stored): UpstreamRow {
  return {
    id: row.id,
    projectId: row.projectId,
    name: row.name,
    kind: row.kind as UpstreamRow["kind"],
    transport: row.transport as UpstreamRow["transport"],
    url: row.url,
    command: row.command,
    args: row.args ? (JSON.parse(row.args) as string[]) : [],
    headers: row.headers ? (JSON.parse(row.headers) as Record<string, string>) : {},
    secretHeader: row.secretHeader,
    secretEnc: row.secretEnc,
    idempotencyHeader: row.idempotencyHeader,
    maxStoredBytes: row.maxStoredBytes,
    createdAt: Number(row.createdAt),
    updatedAt: Number(row.updatedAt),
    version: row.version,
  };
}

function auditData(entry: AuditEntryRow) {
  return { ...entry, at: BigInt(entry.at) };
}

function isUniqueViolation(error: unknown): boolean {
  return typeof error === "object" && error !== null && (error as { code?: unknown }).code === "P2002";
}

/**
 * Upstreams through Prisma Client (plain CRUD, off the hot path). Every write carries its audit
 * entry in the same transaction, so a change is never stored unaudited.
 */
export class UpstreamRepository {
  constructor(private readonly prisma: Db) {}

  async list(projectId: string): Promise<UpstreamRow[]> {
    const rows = await this.prisma.upstream.findMany({ where: { projectId }, orderBy: { name: "asc" } });
    return rows.map(fromStored);
  }

  async get(projectId: string, id: string): Promise<UpstreamRow | null> {
    const row = await this.prisma.upstream.findFirst({ where: { projectId, id } });
    return row ? fromStored(row) : null;
  }

  async byName(projectId: string, name: string): Promise<UpstreamRow | null> {
    const row = await this.prisma.upstream.findUnique({ where: { projectId_name: { projectId, name } } });
    return row ? fromStored(row) : null;
  }

  /** false when the project already has an upstream of that name. */
  async create(row: UpstreamRow, audit: AuditEntryRow): Promise<boolean> {
    try {
      await this.prisma.$transaction([
        this.prisma.upstream.create({ data: toStored(row) }),
        this.prisma.auditEntry.create({ data: auditData(audit) }),
      ]);
      return true;
    } catch (error) {
      if (isUniqueViolation(error)) return false;
      throw error;
    }
  }

  /** Compare-and-set on `version`: null when the row is gone or moved on. */
  async update(projectId: string, id: string, expectedVersion: number, change: UpstreamChange, now: number, audit: AuditEntryRow): Promise<UpstreamRow | null> {
    const data = {
      ...(change.url !== undefined && { url: change.url }),
      ...(change.command !== undefined && { command: change.command }),
      ...(change.args !== undefined && { args: JSON.stringify(change.args) }),
      ...(change.headers !== undefined && { headers: JSON.stringify(change.headers) }),
      ...(change.secretHeader !== undefined && { secretHeader: change.secretHeader }),
      ...(change.secretEnc !== undefined && { secretEnc: change.secretEnc }),
      ...(change.idempotencyHeader !== undefined && { idempotencyHeader: change.idempotencyHeader }),
      ...(change.maxStoredBytes !== undefined && { maxStoredBytes: change.maxStoredBytes }),
      updatedAt: BigInt(now),
      version: expectedVersion + 1,
    };
    return this.prisma.$transaction(async (tx) => {
      const updated = await tx.upstream.updateMany({ where: { projectId, id, version: expectedVersion }, data });
      if (updated.count !== 1) return null;
      await tx.auditEntry.create({ data: auditData(audit) });
      const row = await tx.upstream.findFirstOrThrow({ where: { projectId, id } });
      return fromStored(row);
    });
  }

  async delete(projectId: string, id: string, audit: AuditEntryRow): Promise<boolean> {
    return this.prisma.$transaction(async (tx) => {
      const deleted = await tx.upstream.deleteMany({ where: { projectId, id } });
      if (deleted.count !== 1) return false;
      await tx.auditEntry.create({ data: auditData(audit) });
      return true;
    });
  }
}

function toStored(row: UpstreamRow) {
  return {
    id: row.id,
    projectId: row.projectId,
    name: row.name,
    kind: row.kind,
    transport: row.transport,
    url: row.url,
    command: row.command,
    args: JSON.stringify(row.args),
    headers: JSON.stringify(row.headers),
    secretHeader: row.secretHeader,
    secretEnc: row.secretEnc,
    idempotencyHeader: row.idempotencyHeader,
    maxStoredBytes: row.maxStoredBytes,
    createdAt: BigInt(row.createdAt),
    updatedAt: BigInt(row.updatedAt),
    version: row.version,
  };
}
