import dns from "node:dns";
import http from "node:http";
import https from "node:https";
import type { LookupFunction, Socket } from "node:net";
import type { Duplex } from "node:stream";
import { Readable } from "node:stream";
import type { ReadableStream as NodeReadableStream } from "node:stream/web";
import type { AllowPattern } from "./allow-pattern";
import { OutboundRefusedError } from "./outbound-refused";
import { type OutboundTarget, checkOutboundAddress, checkOutboundUrl, compileAllowlist } from "./outbound-rules";

export interface OutboundInit {
  method?: string;
  headers?: HeadersInit;
  /** A stream body is sent as it arrives; a 307/308 redirect after one is returned, not followed. */
  body?: string | Uint8Array | ReadableStream<Uint8Array> | null;
  signal?: AbortSignal;
  /** "follow" (default) re-checks every hop against the allowlist; "manual" returns the 3xx. */
  redirect?: "follow" | "manual";
  maxRedirects?: number;
  /**
   * Headers the caller added as credentials of the first origin (an upstream's secret in its
   * `secretHeader`, its configured headers): dropped, like Authorization, when a redirect leaves it.
   */
  originBound?: string[];
  /**
   * The query for the first request, byte for byte (`?…`): the URL's own is what a URL parser made
   * of it (it re-encodes `'`, non-ASCII bytes, …). A redirect's target is used as it is written.
   */
  rawQuery?: string;
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);
const NULL_BODY = new Set([101, 204, 205, 304]);
/** Never carried to another origin by a redirect (what fetch drops, plus cookies). */
const ORIGIN_BOUND_HEADERS = ["authorization", "proxy-authorization", "cookie"];

interface ProjectAgents {
  signature: string;
  http: http.Agent;
  https: https.Agent;
}

/**
 * The one way out of the server: every call to an upstream, MCP server or webhook goes through
 * `fetch`, which checks the URL against the project's allowlist, checks the address each
 * connection really goes to (inside DNS resolution, so a rebinding name cannot slip an internal
 * address past the URL check), and follows redirects only hop by hop through the same checks.
 *
 * Bodies come back as the upstream sent them (no content decoding) and as a stream, so a large
 * response is never buffered here.
 */
export class OutboundGuard {
  private readonly agents = new Map<string, ProjectAgents>();

  constructor(private readonly allowlistOf: (projectId: string) => Promise<string[]>) {}

  async assertAllowed(projectId: string, url: string | URL): Promise<OutboundTarget> {
    return checkOutboundUrl(compileAllowlist(await this.allowlistOf(projectId)), url);
  }

  async fetch(projectId: string, input: string | URL, init: OutboundInit = {}): Promise<Response> {
    const patterns = await this.allowlistOf(projectId);
    const allowlist = compileAllowlist(patterns);
    const agents = this.agentsFor(projectId, patterns);
    const maxRedirects = init.maxRedirects ?? 5;
    let method = (init.method ?? "GET").toUpperCase();
    let body = init.body ?? null;
    const headers = new Headers(init.headers);
    let target = checkOutboundUrl(allowlist, input);
    for (let hop = 0; ; hop++) {
      const path = hop === 0 && init.rawQuery !== undefined ? `${target.url.pathname}${init.rawQuery}` : undefined;
      const response = await send(target, allowlist, agents, { method, headers, body, signal: init.signal, path });
      const location = response.headers.get("location");
      if (init.redirect === "manual" || !REDIRECTS.has(response.status) || !location) return response;
      if ((response.status === 307 || response.status === 308) && body !== null && typeof body !== "string" && !(body instanceof Uint8Array)) {
        return response;
      }
      await response.body?.cancel();
      if (hop >= maxRedirects) throw new OutboundRefusedError("redirect_limit", `more than ${maxRedirects} redirects`);
      const next = checkOutboundUrl(allowlist, new URL(location, target.url));
      if (response.status === 303 || ((response.status === 301 || response.status === 302) && method === "POST")) {
        if (method !== "HEAD") method = "GET";
        body = null;
        headers.delete("content-type");
        headers.delete("content-length");
      }
      if (next.url.origin !== target.url.origin) for (const name of [...ORIGIN_BOUND_HEADERS, ...(init.originBound ?? [])]) headers.delete(name);
      target = next;
    }
  }

  /** Pooled connections were checked against the allowlist they were opened under: a change gets new pools. */
  private agentsFor(projectId: string, patterns: string[]): ProjectAgents {
    const signature = patterns.join("\n");
    const current = this.agents.get(projectId);
    if (current?.signature === signature) return current;
    current?.http.destroy();
    current?.https.destroy();
    const options = { keepAlive: true, timeout: 60_000 };
    const fresh = { signature, http: shortIdle(new http.Agent(options)), https: shortIdle(new https.Agent(options)) };
    this.agents.set(projectId, fresh);
    return fresh;
  }

  close(): void {
    for (const agents of this.agents.values()) {
      agents.http.destroy();
      agents.https.destroy();
    }
    this.agents.clear();
  }
}

/**
 * How long a pooled connection may sit idle before we close it ourselves: less than any common
 * server's keep-alive (gunicorn 2 s, Node 5 s, Apache 5 s, nginx 75 s), and less than a shorter
 * `Keep-Alive: timeout=N` a server announces. A request written onto a connection just as the
 * server closes it for idleness fails with a reset before any answer, and from here that cannot be
 * told apart from a server that read it, acted, and then died: its outcome would be unknown. So
 * we never reuse a connection the server may be closing, and any reset we do see is a real one.
 */
export const POOLED_IDLE_MS = 1_000;

function shortIdle<A extends http.Agent>(agent: A): A {
  // Node's own keepSocketAlive answers whether to keep the socket (its typing says void).
  const keepSocketAlive = agent.keepSocketAlive.bind(agent) as unknown as (socket: Duplex) => boolean;
  const reuseSocket = agent.reuseSocket.bind(agent);
  Object.assign(agent, {
    keepSocketAlive(socket: Duplex): boolean {
      const keep = keepSocketAlive(socket);
      const net = socket as Socket;
      // Node has set the agent's timeout, or the server's shorter hint: never more than our own limit,
      // and a short hint is cut by a margin so that our close comes first.
      const hinted = net.timeout !== undefined && net.timeout > 0 && net.timeout < POOLED_IDLE_MS + 1_000 ? Math.max(1, net.timeout - 1_000) : POOLED_IDLE_MS;
      net.setTimeout(hinted);
      return keep;
    },
    reuseSocket(socket: Duplex, request: http.ClientRequest): void {
      (socket as Socket).setTimeout(0);
      reuseSocket(socket, request);
    },
  });
  return agent;
}

function guardedLookup(allowlist: AllowPattern[], port: number): LookupFunction {
  return ((hostname: string, options: dns.LookupOptions, callback: (...args: unknown[]) => void) => {
    dns.lookup(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) return callback(error);
      let refusal: unknown = null;
      const allowed = addresses.filter((entry) => {
        try {
          checkOutboundAddress(allowlist, entry.address, port);
          return true;
        } catch (reason) {
          refusal = reason;
          return false;
        }
      });
      if (allowed.length === 0) return callback(refusal ?? new OutboundRefusedError("unresolvable", `${hostname} has no address`));
      if (options.all) return callback(null, allowed);
      callback(null, allowed[0]!.address, allowed[0]!.family);
    });
  }) as LookupFunction;
}

interface Outgoing {
  method: string;
  headers: Headers;
  body: OutboundInit["body"];
  signal?: AbortSignal;
  /** The request target when it is not the URL's path and query. */
  path?: string;
}

function send(target: OutboundTarget, allowlist: AllowPattern[], agents: ProjectAgents, outgoing: Outgoing): Promise<Response> {
  const secure = target.url.protocol === "https:";
  const headers: Record<string, string> = {};
  outgoing.headers.forEach((value, name) => (headers[name] = value));
  return new Promise<Response>((resolve, reject) => {
    const request = (secure ? https : http).request(target.url, {
      method: outgoing.method,
      ...(outgoing.path !== undefined ? { path: outgoing.path } : {}),
      headers,
      agent: secure ? agents.https : agents.http,
      lookup: guardedLookup(allowlist, target.port),
      signal: outgoing.signal,
    });
    request.once("error", reject);
    request.once("response", (incoming) => {
      const responseHeaders = new Headers();
      for (let i = 0; i < incoming.rawHeaders.length; i += 2) responseHeaders.append(incoming.rawHeaders[i]!, incoming.rawHeaders[i + 1]!);
      const status = incoming.statusCode ?? 502;
      const nullBody = NULL_BODY.has(status) || outgoing.method === "HEAD";
      if (nullBody) incoming.resume();
      const body = nullBody ? null : (Readable.toWeb(incoming) as unknown as ReadableStream<Uint8Array>);
      resolve(new Response(body, { status, statusText: incoming.statusMessage, headers: responseHeaders }));
    });
    const body = outgoing.body;
    if (body === null || body === undefined) request.end();
    else if (typeof body === "string" || body instanceof Uint8Array) request.end(body);
    else Readable.fromWeb(body as unknown as NodeReadableStream<Uint8Array>).on("error", (error) => request.destroy(error)).pipe(request);
  });
}
