import type { Gate } from "../../../sdk/gate";
import { createGate } from "../../../sdk/gate";
import { bodyValue, responseFromReply } from "../../../sdk/http/fetch-reply";
import { type IdempotencyOptions, problemReply, runIdempotent } from "../../../sdk/http/idempotency-core";
import type { HttpReply } from "../../../sdk/http/stored-response";
import { withHttpClientSpan } from "../../../telemetry/http-client-span";
import { RESEND_HEADER } from "../../../sdk/http/key-source";
import type { GateService } from "../../gate/gate-service";
import type { Actor } from "../../operators/operator-audit";
import type { ResendService } from "../../resends/resend-service";
import type { OutboundInit } from "../../outbound/outbound-fetch";
import { OutboundRefusedError } from "../../outbound/outbound-refused";
import type { ResolvedUpstream } from "../upstreams/upstream-service";
import { type ClientView, clientView } from "../../../http/client-address";
import { forwardedRequestHeaders, rawQuery, returnedResponseHeaders, upstreamUrl } from "./forward-headers";
import { readLimited } from "./read-limited";
import { readBoundedBody } from "../../../http/bounded-body";
import { publicOrigin } from "../../../http/public-origin";
import { problemTypeBase } from "../../../sdk/http/problem";
import { AppError } from "../../app-error";

/** What the gateway needs from the upstream registry and the outbound guard: swapped in tests. */
export interface GatewayDeps {
  service: GateService;
  /** Where an approved resend request's token is read, for a request that asks to run again. */
  resends?: () => ResendService;
  resolveUpstream(projectId: string, name: string): Promise<ResolvedUpstream>;
  outbound: {
    assertAllowed(projectId: string, url: URL): Promise<unknown>;
    fetch(projectId: string, url: URL, init: OutboundInit): Promise<Response>;
  };
}

export interface GatewaySettings {
  /** Responses up to this size are stored and replayed; larger ones pass through, not replayable (an upstream may set its own). */
  maxStoredBytes: number;
  /** The caller's key header, and the one the gate's key goes upstream in unless the upstream names another. */
  keyHeader: string;
  /** Longest a forwarded request may take. */
  timeoutMs: number;
  /** Largest request body forwarded. */
  maxRequestBytes: number;
}

export const DEFAULT_GATEWAY_SETTINGS: GatewaySettings = {
  maxStoredBytes: 1024 * 1024,
  keyHeader: "idempotency-key",
  timeoutMs: 60_000,
  maxRequestBytes: 10 * 1024 * 1024,
};

/** One request as it goes upstream: where, its query as sent, who sent it, and its body. */
interface Outgoing {
  url: URL;
  query: string;
  client: ClientView;
  req: Request;
  bytes: Uint8Array;
  typeBase: string;
}

export interface GatewayRequest {
  projectId: string;
  upstream: string;
  path: string[];
  req: Request;
  /** The API key calling and the audit log's actor: a resend request is filed for them, and its token handed to them. */
  caller?: { apiKeyId: string; actor: Actor };
}

/**
 * `/gw/{upstream}/…`: HTTP tools you don't own, behind the same gate as agent calls. POST and
 * PATCH are gated on the caller's Idempotency-Key (or Idemgate-Run-Id / Step-Id / Scope) exactly
 * like the middleware, the gate's key is forwarded upstream, and every upstream request goes
 * through the project's outbound allowlist. Other methods are forwarded ungated and streamed.
 */
export class HttpGateway {
  private readonly gates = new Map<string, Gate>();

  constructor(
    private readonly deps: GatewayDeps,
    private readonly settings: GatewaySettings = DEFAULT_GATEWAY_SETTINGS,
  ) {}

  async handle({ projectId, upstream, path, req, caller }: GatewayRequest): Promise<Response> {
    const resolved = await this.deps.resolveUpstream(projectId, upstream);
    // Problems link to their pages on this gate (app/problems).
    const origin = publicOrigin(req);
    const typeBase = problemTypeBase(origin);
    const source = new URL(req.url);
    const client = clientView(req.headers);
    // The query goes upstream (and into the payload's fingerprint) byte for byte as the client sent it.
    const query = rawQuery(client.rawTarget, source.search);
    const target = upstreamUrl(resolved.row.url!, path, source.search);
    if (!target) return responseFromReply(problemReply("badPath", "path segments `.`, `..` and empty ones are not forwarded", [], {}, typeBase));
    try {
      await this.deps.outbound.assertAllowed(projectId, target);
    } catch (error) {
      if (error instanceof OutboundRefusedError) return responseFromReply(refused(error, typeBase));
      throw error;
    }

    // Counted as it arrives (a chunked body declares no length); a content-coded one is refused (415).
    let bytes: Uint8Array;
    try {
      bytes = await readBoundedBody(req.headers, req.body, this.settings.maxRequestBytes);
    } catch (error) {
      if (!(error instanceof AppError && error.code === "payload_too_large")) throw error;
      return responseFromReply(problemReply("tooLarge", `the request body is too large: request bodies are forwarded up to ${this.settings.maxRequestBytes} bytes`, [], {}, typeBase));
    }
    const maxStoredBytes = resolved.row.maxStoredBytes ?? this.settings.maxStoredBytes;
    // A request that asks to run a completed key again needs to know who asks (the resend request is theirs).
    const gate = req.headers.has(RESEND_HEADER) ? this.resendGate(projectId, caller) : this.gateFor(projectId);
    const options: IdempotencyOptions = { gate, maxStoredBytes, keyHeader: this.settings.keyHeader, problemBaseUrl: origin };
    const incoming = {
      method: req.method,
      route: `/gw/${upstream}/${path.join("/")}`,
      target: source.pathname + query,
      header: (name: string) => req.headers.get(name),
      body: bodyValue(bytes, req.headers.get("content-type")),
      // Keys are the calling API key's: another key's same Idempotency-Key is its own request.
      caller: caller?.apiKeyId ?? null,
    };
    const sent: Outgoing = { url: target, query, client, req, bytes, typeBase };
    const forward = (key: string | null, signal?: AbortSignal, storeUpTo = maxStoredBytes) => this.forward(projectId, resolved, sent, key, storeUpTo, signal);
    // A route whose policy never replays streams its response through from the first byte.
    const answer = await runIdempotent(options, incoming, (ctx) => forward(ctx.idempotencyKey, ctx.signal, ctx.replayable ? maxStoredBytes : 0));
    // Not gated (a GET, or no key where one is optional): nothing is stored, so it streams from the first byte.
    if (answer.kind === "pass") return responseFromReply(throughNext(await forward(null, undefined, 0)));
    return responseFromReply(throughNext(answer.reply));
  }

  private gateFor(projectId: string): Gate {
    let gate = this.gates.get(projectId);
    if (!gate) {
      gate = createGate({ inProcess: { projectId, service: this.deps.service }, waitMs: 5_000 });
      this.gates.set(projectId, gate);
    }
    return gate;
  }

  /** A gate client for one request, so that a resend is asked for (and its token read) as the caller. */
  private resendGate(projectId: string, caller: GatewayRequest["caller"]): Gate {
    const resends = this.deps.resends?.();
    return createGate({ inProcess: { projectId, service: this.deps.service, ...(caller ? { caller } : {}), ...(resends ? { resends } : {}) }, waitMs: 5_000 });
  }

  /** One upstream request; failures become replies so the core records them (5xx released, 4xx kept). */
  private async forward(projectId: string, upstream: ResolvedUpstream, { url, query, client, req, bytes, typeBase }: Outgoing, key: string | null, maxStoredBytes: number, signal?: AbortSignal): Promise<HttpReply> {
    const upstreamKeyHeader = upstream.row.idempotencyHeader ?? this.settings.keyHeader;
    const forwarded = forwardedRequestHeaders(req.headers, [this.settings.keyHeader, upstreamKeyHeader], client);
    const headers = { ...forwarded, ...upstream.headers, ...(key ? { [upstreamKeyHeader]: key } : {}) };
    const timeout = AbortSignal.timeout(this.settings.timeoutMs);
    const method = req.method.toUpperCase();
    let response: Response;
    try {
      response = await withHttpClientSpan(method, url, (trace) =>
        this.deps.outbound.fetch(projectId, url, {
          method,
          headers: { ...headers, ...trace },
          body: bytes.byteLength && method !== "GET" && method !== "HEAD" ? bytes : null,
          signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
          // Every header the upstream's configuration adds (its secret among them) is for its origin only.
          originBound: Object.keys(upstream.headers),
          rawQuery: query,
        }),
      );
    } catch (error) {
      if (error instanceof OutboundRefusedError) return refused(error, typeBase);
      // Nothing came back: a 502, released, so the caller's retry forwards it again under the same key.
      return problemReply("upstreamFailed", `${upstream.row.name} did not answer: ${(error as Error).message}`, [], {}, typeBase);
    }
    if (maxStoredBytes === 0 && response.body) return { status: response.status, headers: returnedResponseHeaders(response.headers), body: null, stream: response.body };
    const body = await readLimited(response.body, maxStoredBytes);
    const base = { status: response.status, headers: returnedResponseHeaders(response.headers) };
    return "bytes" in body ? { ...base, body: body.bytes.byteLength ? body.bytes : null } : { ...base, body: null, stream: body.stream };
  }
}

/**
 * Next.js drops Content-Encoding from a route handler's answer (it assumes fetch decoded the body),
 * which would leave the caller compressed bytes it cannot read. The gateway passes the upstream's
 * bytes as they are, so it sends the encoding under its own name and the server (scripts/serve.mjs)
 * writes it back as Content-Encoding on the way out.
 */
export const CONTENT_ENCODING_THROUGH_NEXT = "idemgate-content-encoding";

function throughNext(reply: HttpReply): HttpReply {
  if (!reply.headers.some(([name]) => name.toLowerCase() === "content-encoding")) return reply;
  return { ...reply, headers: reply.headers.map(([name, value]) => (name.toLowerCase() === "content-encoding" ? [CONTENT_ENCODING_THROUGH_NEXT, value] : [name, value])) };
}

function refused(error: OutboundRefusedError, typeBase: string): HttpReply {
  return problemReply("upstreamRefused", `${error.message} (${error.reason})`, [], {}, typeBase);
}
