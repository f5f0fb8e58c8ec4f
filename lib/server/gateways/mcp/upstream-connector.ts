import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { StdioClientTransport, getDefaultEnvironment } from "@modelcontextprotocol/client/stdio";
import type { ResolvedUpstream } from "../upstreams/upstream-service";
import { type LogRelay, passesThreshold } from "./upstream-logs";

/** How the gateway reaches the network: the project's outbound allowlist (lib/server/outbound). */
export type UpstreamFetch = (url: string | URL, init?: RequestInit) => Promise<Response>;
export type FetchFor = (projectId: string) => UpstreamFetch;

interface Connected {
  client: Client;
  /** The upstream row's id and version it was built from: a changed upstream gets a new client. */
  stamp: string;
}

const CLIENT_INFO = { name: "idemgate-mcp-gateway", version: "0.1.0" };

/**
 * One connected SDK client per upstream per process, reused across requests (a Streamable HTTP
 * client holds no socket between requests; a stdio client holds its child process). A client that
 * failed is dropped, so the next call connects afresh.
 */
export class UpstreamConnector {
  private readonly clients = new Map<string, Promise<Connected>>();
  /** Each client's tools/call requests on the wire: their JSON-RPC id by the gate key in their `_meta`. */
  private readonly wireIds = new WeakMap<Client, Map<string, string | number>>();
  /** Dropped clients that still carry calls: closed when the last one settles. */
  private readonly retired = new Set<Client>();

  constructor(private readonly fetchFor: FetchFor) {}

  async client(upstream: ResolvedUpstream): Promise<Client> {
    const stamp = `${upstream.row.id}:${upstream.row.version}`;
    const cached = this.clients.get(upstream.row.id);
    if (cached) {
      const connected = await cached.catch(() => null);
      if (connected?.stamp === stamp) return connected.client;
      this.drop(upstream.row.id, connected?.client);
    }
    const pending = this.connect(upstream, stamp);
    this.clients.set(upstream.row.id, pending);
    try {
      return (await pending).client;
    } catch (error) {
      if (this.clients.get(upstream.row.id) === pending) this.clients.delete(upstream.row.id);
      throw new UpstreamUnreachableError(upstream.row.name, error);
    }
  }

  /**
   * A client of its own for one call whose caller wants the upstream's log messages: on the shared
   * client a message could not be told apart from another call's. The caller closes it. The
   * upstream is asked for the caller's level where it speaks `logging/setLevel`; the relay filters
   * again, since an upstream may send below it.
   */
  async dedicated(upstream: ResolvedUpstream, relay: LogRelay): Promise<Client> {
    const client = await this.ownClient(upstream, (own) =>
      own.setNotificationHandler("notifications/message", (notification) => {
        const { level, data, logger } = notification.params;
        if (passesThreshold(level, relay.level)) relay.send({ level, data, ...(logger === undefined ? {} : { logger }) });
      }),
    );
    if (client.getServerCapabilities()?.logging) await client.setLoggingLevel(relay.level).catch(() => undefined);
    return client;
  }

  /** Forget a client after a transport failure; its next use reconnects. */
  forget(upstream: ResolvedUpstream, client: Client): void {
    void this.clients.get(upstream.row.id)?.then((connected) => {
      if (connected.client === client) this.drop(upstream.row.id, client);
    }, () => undefined);
  }

  /**
   * New calls get a new client at once; the old one is closed only once the calls in flight on it
   * have settled. Closing it under them would fail every one of them ("Connection closed") for
   * one call's broken connection, and they were sent: their outcomes would all be unknown.
   */
  private drop(id: string, client: Client | undefined): void {
    this.clients.delete(id);
    if (!client) return;
    if ((this.wireIds.get(client)?.size ?? 0) === 0) void client.close().catch(() => undefined);
    else this.retired.add(client);
  }

  /**
   * Tells the upstream that the tools/call carrying this gate key is cancelled (a client's
   * `notifications/cancelled`, passed on), without giving up on its answer: an upstream that
   * finishes anyway still has its outcome recorded. False when the request is not on the wire.
   */
  async cancelCall(client: Client, key: string, reason: string): Promise<boolean> {
    const requestId = this.wireIds.get(client)?.get(key);
    if (requestId === undefined) return false;
    await client.notification({ method: "notifications/cancelled", params: { requestId, reason } });
    return true;
  }

  /** The call has answered (or been given up on): its wire id is no longer needed. */
  settled(client: Client, key: string): void {
    const ids = this.wireIds.get(client);
    ids?.delete(key);
    if (this.retired.has(client) && (ids?.size ?? 0) === 0) {
      this.retired.delete(client);
      void client.close().catch(() => undefined);
    }
  }

  /**
   * A client of its own, never shared nor cached, whose notifications belong to one caller alone
   * (a call's log messages, a session's resource updates); `setup` registers its handlers before
   * it connects. The caller closes it.
   */
  async ownClient(upstream: ResolvedUpstream, setup: (client: Client) => void): Promise<Client> {
    const client = new Client(CLIENT_INFO, { capabilities: {} });
    setup(client);
    try {
      await this.attach(client, upstream);
    } catch (error) {
      throw new UpstreamUnreachableError(upstream.row.name, error);
    }
    return client;
  }

  private async connect(upstream: ResolvedUpstream, stamp: string): Promise<Connected> {
    const client = new Client(CLIENT_INFO, { capabilities: {} });
    await this.attach(client, upstream);
    return { client, stamp };
  }

  /** Connects a client, its tools/call wire ids watched so a cancellation can name the request. */
  private async attach(client: Client, { row, headers, stdio }: ResolvedUpstream): Promise<void> {
    const ids = new Map<string, string | number>();
    this.wireIds.set(client, ids);
    if (row.transport === "stdio") {
      // Only what the server's configuration lists under the row's name is spawned, never the row's own text.
      const spawn = stdio;
      if (!spawn) throw new Error(`the stdio command "${row.command}" is not listed in this server's IDEMGATE_STDIO_COMMANDS`);
      const env = spawn.env ? { ...getDefaultEnvironment(), ...spawn.env } : undefined;
      await client.connect(watchToolCalls(new StdioClientTransport({ command: spawn.command, args: spawn.args, env, cwd: spawn.cwd, stderr: "ignore" }), ids));
    } else {
      const fetch = this.fetchFor(row.projectId);
      const transport = new StreamableHTTPClientTransport(new URL(row.url!), { requestInit: { headers }, fetch });
      await client.connect(watchToolCalls(transport, ids));
    }
  }
}

/**
 * Notes the JSON-RPC id of each tools/call the SDK client sends, by the gate key in its `_meta`
 * (unique per execution: one lease holder per key), so a cancel can name the upstream's request
 * while the gateway keeps listening for its answer (the SDK's own abort would stop listening).
 */
function watchToolCalls<T extends { send: (message: never, options?: never) => Promise<void> }>(transport: T, ids: Map<string, string | number>): T {
  const send = transport.send.bind(transport) as (message: unknown, options?: unknown) => Promise<void>;
  (transport as unknown as { send: (message: unknown, options?: unknown) => Promise<void> }).send = (message, options) => {
    const { method, id, params } = (message ?? {}) as { method?: unknown; id?: unknown; params?: { _meta?: Record<string, unknown> } };
    const key = method === "tools/call" ? params?._meta?.["idemgate/key"] : undefined;
    if (typeof key === "string" && (typeof id === "string" || typeof id === "number")) ids.set(key, id);
    return send(message, options);
  };
  return transport;
}

/** The upstream could not be reached at all: nothing was sent, so nothing ran. */
export class UpstreamUnreachableError extends Error {
  constructor(
    readonly upstream: string,
    readonly reason: unknown,
  ) {
    super(`upstream ${upstream} is unreachable: ${describeCause(reason)}`);
    this.name = "UpstreamUnreachableError";
  }
}

export function describeCause(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = (error as { cause?: unknown }).cause;
  const code = cause && typeof cause === "object" && "code" in cause ? ` (${String((cause as { code: unknown }).code)})` : "";
  return `${error.message}${code}`;
}
