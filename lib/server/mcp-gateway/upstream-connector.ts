import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import type { ResolvedUpstream } from "../upstreams/upstream-service";

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

  /** Forget a client after a transport failure; its next use reconnects. */
  forget(upstream: ResolvedUpstream, client: Client): void {
    void this.clients.get(upstream.row.id)?.then((connected) => {
      if (connected.client === client) this.drop(upstream.row.id, client);
    }, () => undefined);
  }

  private drop(id: string, client: Client | undefined): void {
    this.clients.delete(id);
    void client?.close().catch(() => undefined);
  }

  private async connect(upstream: ResolvedUpstream, stamp: string): Promise<Connected> {
    const { row, headers } = upstream;
    const client = new Client(CLIENT_INFO, { capabilities: {} });
    if (row.transport === "stdio") {
      await client.connect(new StdioClientTransport({ command: row.command!, args: row.args, stderr: "ignore" }));
    } else {
      const fetch = this.fetchFor(row.projectId);
      const transport = new StreamableHTTPClientTransport(new URL(row.url!), { requestInit: { headers }, fetch });
      await client.connect(transport);
    }
    return { client, stamp };
  }
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
