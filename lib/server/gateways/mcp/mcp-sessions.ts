import type { McpSessionRepository, McpSessionRow } from "../../../store/prisma/mcp-session-repository";
import { newId } from "../../ids";

/** A session lives while it is used: each request within a day keeps it another day. */
const IDLE_TTL_MS = 24 * 3_600_000;
/** Resource subscriptions one session may hold (a bound on what its GET stream keeps subscribed upstream). */
export const MAX_SUBSCRIPTIONS = 100;
/** The longest resource URI a session may subscribe to. */
export const MAX_SUBSCRIPTION_URI = 2_048;
/** Touch at most once a minute per session: a busy session is one write a minute, not one per call. */
const TOUCH_EVERY_MS = 60_000;

/**
 * MCP sessions without sticky routing: serving is stateless per request (a fresh SDK server per
 * request, nothing in memory), and a session is only its row in the shared database. Any
 * instance accepts a session any other issued; an unknown or ended one answers 404, which tells
 * the client to initialize again (the spec's rule).
 */
export class McpSessions {
  constructor(
    private readonly repository: McpSessionRepository,
    private readonly clock: () => number = Date.now,
  ) {}

  async open(input: { projectId: string; upstream: string; apiKeyId: string; protocolVersion: string | null; clientName: string | null }): Promise<string> {
    const now = this.clock();
    const id = newId("mcps", now);
    await this.repository.create({ id, ...input, logLevel: null, createdAt: now, lastSeenAt: now, expiresAt: now + IDLE_TTL_MS });
    return id;
  }

  /** The session when it is live and belongs to this project and upstream; null otherwise. */
  async find(id: string, projectId: string, upstream: string): Promise<McpSessionRow | null> {
    const row = await this.repository.find(id);
    const now = this.clock();
    if (!row || row.projectId !== projectId || row.upstream !== upstream || row.expiresAt <= now) return null;
    if (now - row.lastSeenAt >= TOUCH_EVERY_MS) await this.repository.touch(id, now, now + IDLE_TTL_MS);
    return row;
  }

  /** logging/setLevel: kept on the row, since the next request may reach another instance. */
  setLogLevel(projectId: string, id: string, level: string): Promise<void> {
    return this.repository.setLogLevel(projectId, id, level);
  }

  end(projectId: string, id: string): Promise<boolean> {
    return this.repository.delete(projectId, id);
  }

  /**
   * resources/subscribe of a session: stored, so the instance holding its GET stream (any) sees it.
   * False when the session already holds MAX_SUBSCRIPTIONS other URIs (each is an upstream
   * subscription some instance keeps up).
   */
  async subscribe(sessionId: string, uri: string): Promise<boolean> {
    const held = await this.repository.subscriptions(sessionId);
    if (held.length >= MAX_SUBSCRIPTIONS && !held.includes(uri)) return false;
    await this.repository.subscribe(sessionId, uri, this.clock());
    return true;
  }

  unsubscribe(sessionId: string, uri: string): Promise<void> {
    return this.repository.unsubscribe(sessionId, uri);
  }

  /** The URIs a session is subscribed to, whichever instance took the subscribe. */
  subscriptions(sessionId: string): Promise<string[]> {
    return this.repository.subscriptions(sessionId);
  }

  /** Forgets sessions idle past their TTL (the collector's interval runs it on every instance). */
  purgeExpired(): Promise<number> {
    return this.repository.purgeExpired(this.clock());
  }
}
