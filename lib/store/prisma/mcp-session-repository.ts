import type { Db } from "./client";

export interface McpSessionRow {
  id: string;
  projectId: string;
  upstream: string;
  apiKeyId: string;
  protocolVersion: string | null;
  clientName: string | null;
  /** Set by logging/setLevel (session-era clients); null until then. */
  logLevel: string | null;
  createdAt: number;
  lastSeenAt: number;
  expiresAt: number;
}

/** MCP sessions the gateway issued: a row per session, shared by every gate instance. */
export class McpSessionRepository {
  constructor(private readonly prisma: Db) {}

  async create(row: McpSessionRow): Promise<void> {
    await this.prisma.mcpSession.create({
      data: { ...row, createdAt: BigInt(row.createdAt), lastSeenAt: BigInt(row.lastSeenAt), expiresAt: BigInt(row.expiresAt) },
    });
  }

  async find(id: string): Promise<McpSessionRow | null> {
    const row = await this.prisma.mcpSession.findUnique({ where: { id } });
    if (!row) return null;
    return { ...row, createdAt: Number(row.createdAt), lastSeenAt: Number(row.lastSeenAt), expiresAt: Number(row.expiresAt) };
  }

  async touch(id: string, now: number, expiresAt: number): Promise<void> {
    await this.prisma.mcpSession.updateMany({ where: { id }, data: { lastSeenAt: BigInt(now), expiresAt: BigInt(expiresAt) } });
  }

  async setLogLevel(projectId: string, id: string, level: string): Promise<void> {
    await this.prisma.mcpSession.updateMany({ where: { projectId, id }, data: { logLevel: level } });
  }

  async delete(projectId: string, id: string): Promise<boolean> {
    const ended = (await this.prisma.mcpSession.deleteMany({ where: { projectId, id } })).count === 1;
    if (ended) await this.prisma.mcpSessionSubscription.deleteMany({ where: { sessionId: id } });
    return ended;
  }

  async purgeExpired(now: number): Promise<number> {
    const expired = await this.prisma.mcpSession.findMany({ where: { expiresAt: { lte: BigInt(now) } }, select: { id: true }, take: 1_000 });
    if (expired.length === 0) return 0;
    const ids = expired.map((row) => row.id);
    await this.prisma.mcpSessionSubscription.deleteMany({ where: { sessionId: { in: ids } } });
    return (await this.prisma.mcpSession.deleteMany({ where: { id: { in: ids }, expiresAt: { lte: BigInt(now) } } })).count;
  }

  /** Idempotent: subscribing twice to one URI is one row (the spec's subscribe is not counted). */
  async subscribe(sessionId: string, uri: string, now: number): Promise<void> {
    await this.prisma.mcpSessionSubscription.upsert({
      where: { sessionId_uri: { sessionId, uri } },
      create: { sessionId, uri, createdAt: BigInt(now) },
      update: {},
    });
  }

  async unsubscribe(sessionId: string, uri: string): Promise<void> {
    await this.prisma.mcpSessionSubscription.deleteMany({ where: { sessionId, uri } });
  }

  async subscriptions(sessionId: string): Promise<string[]> {
    const rows = await this.prisma.mcpSessionSubscription.findMany({ where: { sessionId }, select: { uri: true }, orderBy: { uri: "asc" } });
    return rows.map((row) => row.uri);
  }
}
