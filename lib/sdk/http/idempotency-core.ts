import { createHash } from "node:crypto";
import { GateError, ToolError, type ToolErrorInfo } from "../errors";
import type { Gate } from "../gate";
import type { CallResult, CallSpec, ExecContext } from "../types";
import { type HeaderReader, type KeySource, RESEND_HEADER, readKeySource, readResendReason } from "./key-source";
import { type Problem, type ProblemKind, problem, problemTypeBase } from "./problem";
import {
  DEFAULT_KEEP_HEADERS,
  DEFAULT_MAX_STORED_BYTES,
  type HttpReply,
  type StoredResponse,
  classifyStatus,
  fromStored,
  headerKeeper,
  isStoredResponse,
  toStored,
} from "./stored-response";

export interface IdempotencyOptions {
  /** A gate client: createGate({ baseUrl, apiKey }) over HTTP, or createGate({ inProcess }) in the same process. */
  gate: Gate;
  /** Requests with these methods are gated; others pass straight through. Default POST and PATCH, as the draft. */
  methods?: string[];
  /** A gated request without a key is a 400 (default); false lets it through ungated. */
  required?: boolean;
  /** Wait this long for a concurrent request with the same key, then replay its response; 0 (default) answers 409 at once. */
  latchMs?: number;
  /**
   * Response headers kept for replays (`x-*` matches a prefix), besides those the route's policy
   * keeps (policy `keepHeaders`: content and caching headers and `x-*` unless an operator changes it).
   */
  keepHeaders?: string[];
  /** Bodies larger than this are not stored: a replay gets the status and headers only. Default 1 MiB. */
  maxStoredBytes?: number;
  /** The request header carrying the key. Default Idempotency-Key. */
  keyHeader?: string;
  /**
   * The gate's public URL, whose /problems/<slug> pages the problems' `type` links to. Default the
   * gate's baseUrl when it is reached over HTTP; a gate in process without one keeps the
   * `urn:idemgate:problem:<slug>` types.
   */
  problemBaseUrl?: string;
}

/** The request as the core needs it; adapters build it from their framework's request. */
export interface IncomingHttp {
  method: string;
  /** The route pattern (`/v1/refunds/:id`): with the method it names the tool, e.g. `POST /v1/refunds/:id`. */
  route: string;
  /** Path and query of this request: part of the payload fingerprint. */
  target: string;
  header: HeaderReader;
  /** The body: parsed JSON when it is JSON, else its bytes. */
  body: unknown;
  /**
   * Who sent it (the adapter's `caller(req)`; `/gw`: the API key), or null for an app with one
   * caller: part of the key's scope, so one caller's key never replays another's response.
   */
  caller: string | null;
}

/** The adapters' `caller` option: who sent a request, or null for an app with one caller. */
export type CallerOf<Req> = ((req: Req) => string | null | undefined | Promise<string | null | undefined>) | null;

/**
 * `caller` is required: left out, two clients that happen to send one key would share a response
 * (the draft's security considerations; Stripe scopes keys per account). `null` says, explicitly,
 * that the app has one caller.
 */
export function requireCaller<Req>(caller: CallerOf<Req> | undefined): CallerOf<Req> {
  if (caller === undefined) {
    throw new TypeError("idempotency: the `caller` option is required: a function naming the request's caller (the authenticated user or API key), or null when the app has one caller");
  }
  return caller;
}

export async function resolveCaller<Req>(caller: CallerOf<Req>, req: Req): Promise<string | null> {
  if (caller === null) return null;
  const name = await caller(req);
  return name === undefined || name === null || name === "" ? null : String(name);
}

export interface HandlerContext {
  /** The gate's key for this request: pass it downstream as your own idempotency key. */
  idempotencyKey: string;
  attempt: number;
  signal: AbortSignal;
  /**
   * False when the route's policy never replays a response (effect read, onDuplicate execute or
   * refuse): the adapter then passes the body through as it comes instead of holding it.
   */
  replayable: boolean;
}

export type IdempotentAnswer =
  /** The handler ran (now): send its live response. */
  | { kind: "executed"; reply: HttpReply }
  /** Not gated (method or no key with required: false): run the handler as usual. */
  | { kind: "pass" }
  /** Send this instead of running the handler: a replay or a problem. */
  | { kind: "answer"; reply: HttpReply };

export const REPLAYED_HEADER = "idempotent-replayed";
const STORED_PREFIX = "idemgate-http:";
const MAX_ERROR_MESSAGE = 10_000;

/** The gate's bound on a tool name (contract/v1.ts). */
const MAX_TOOL_NAME = 200;

/**
 * The tool a request is: method and route. A name over the gate's 200 characters keeps its start
 * and ends with a digest of the whole: cut short alone, two long routes sharing their first 200
 * characters were one tool, and a key reused on the other replayed the first's response.
 */
export function toolName(method: string, route: string): string {
  const name = `${method.toUpperCase()} ${route}`.normalize("NFC");
  if (name.length <= MAX_TOOL_NAME) return name;
  const digest = createHash("sha256").update(name).digest("hex").slice(0, 16);
  return `${name.slice(0, MAX_TOOL_NAME - digest.length - 2)}…#${digest}`;
}

/**
 * The payload fingerprint's input: the path and the body (JSON as values, other bodies by hash).
 * The hash goes as the gate's digest stand-in (lib/core/canonical.ts, DIGEST_FIELD): it
 * fingerprints as the bare hex did (so records of older versions keep their 422 semantics), and
 * the gate stores a tag keyed with its install secret in its place, never the bare SHA-256 that a
 * viewer could brute-force back to a short body (a PIN in a form post).
 */
export function payloadArgs(target: string, body: unknown): unknown {
  if (body instanceof Uint8Array) return { target, bodySha256: body.byteLength ? { [BODY_DIGEST_FIELD]: createHash("sha256").update(body).digest("hex") } : null };
  return { target, body: body ?? null };
}

/** lib/core/canonical.ts's DIGEST_FIELD, spelled here: the SDK imports nothing of the server. */
const BODY_DIGEST_FIELD = "idemgate/sha256";

export function problemReply(kind: ProblemKind, detail: string, headers: [string, string][] = [], extensions: Record<string, unknown> = {}, typeBase?: string): HttpReply {
  const body: Problem = problem(kind, detail, extensions, typeBase);
  return {
    status: body.status,
    headers: [["content-type", "application/problem+json"], ["content-language", "en"], ...headers],
    body: new TextEncoder().encode(JSON.stringify(body)),
  };
}

const problemReplyAt = problemReply;

/** Where the problems' `type` links: the option, else the gate's own URL when it has one. */
function problemBaseOf(options: IdempotencyOptions): string | undefined {
  const origin = options.problemBaseUrl ?? options.gate.transport.baseUrl;
  return origin ? problemTypeBase(origin) : undefined;
}

/** The gate's bound on an id (contract/v1.ts). */
const MAX_ID = 200;

/**
 * An id in a caller's scope: `<caller tag>/<id>`, the tag a digest of the caller (an API key or a
 * user id is never stored or shown). Null keeps the id as it is, so an app with one caller keeps
 * its keys. An id too long for the gate with its tag keeps its start and ends with a digest of the
 * whole, as toolName does.
 */
export function callerScoped(caller: string | null, id: string): string {
  if (caller === null) return id;
  const tag = createHash("sha256").update(`idemgate/caller\u0000${caller}`).digest("hex").slice(0, 16);
  const scoped = `${tag}/${id}`;
  if (scoped.length <= MAX_ID) return scoped;
  const digest = createHash("sha256").update(id).digest("hex").slice(0, 16);
  return `${scoped.slice(0, MAX_ID - digest.length - 1)}~${digest}`;
}

function specFor(source: Extract<KeySource, { kind: "key" | "run" }>, tool: string, args: unknown, caller: string | null): CallSpec {
  // Under the step (default), scope and toolCallId strategies the gate's key is then a function of
  // (project, caller, method and route, Idempotency-Key) only: the key scope (DESIGN.md).
  if (source.kind === "key") {
    const id = callerScoped(caller, source.key);
    return { tool, runId: id, scope: id, toolCallId: id, args };
  }
  return {
    tool,
    runId: callerScoped(caller, source.runId),
    ...(source.stepId ? { step: source.stepId } : {}),
    ...(source.scope ? { scope: callerScoped(caller, source.scope) } : {}),
    ...(source.agentId ? { agentId: source.agentId } : {}),
    args,
  };
}

/** Room for the rest of a complete request (lease token, outcome, ids) around the stored response. */
const COMPLETE_OVERHEAD = 16 * 1024;

/**
 * A stored response whose encoded form (JSON, base64 for binary bodies) would not fit in the gate's
 * request is kept as one without its body: recorded not replayable, as one over maxStoredBytes is,
 * never sent for the gate to refuse (its replay was a 500).
 */
function fitsGate(stored: StoredResponse, maxRequestBytes: number | undefined): StoredResponse {
  if (maxRequestBytes === undefined || stored.body === null) return stored;
  if (Buffer.byteLength(JSON.stringify(stored)) + COMPLETE_OVERHEAD <= maxRequestBytes) return stored;
  return { ...stored, body: null, bodyOmitted: true };
}

/**
 * A permanent failure's response rides in the error message as it always has (a gate of an older
 * version keeps only the message), and whole in the error's `result`, which the gate keeps and
 * replays as a success's result: a 4xx whose body is longer than a message replays as that 4xx,
 * byte for byte, not as a 409. The message then holds the status and headers only.
 */
function permanentFailure(reply: HttpReply, stored: StoredResponse): HandlerFailed {
  const full = STORED_PREFIX + JSON.stringify(stored);
  if (full.length <= MAX_ERROR_MESSAGE) return new HandlerFailed(reply, full, false);
  let headersOnly = STORED_PREFIX + JSON.stringify({ ...stored, body: null, bodyOmitted: true });
  if (headersOnly.length > MAX_ERROR_MESSAGE) headersOnly = STORED_PREFIX + JSON.stringify({ ...stored, headers: [], body: null, bodyOmitted: true });
  return new HandlerFailed(reply, headersOnly, false, stored.bodyOmitted ? undefined : stored);
}

/** The failure's stored response: its `result` (gates that keep one), else what its message holds. */
function storedFromError(error: ToolErrorInfo): StoredResponse | null {
  if (isStoredResponse(error.result)) return error.result;
  if (!error.message.startsWith(STORED_PREFIX)) return null;
  try {
    const parsed: unknown = JSON.parse(error.message.slice(STORED_PREFIX.length));
    return isStoredResponse(parsed) ? parsed : null;
  } catch {
    return null;
  }
}

function replay(stored: StoredResponse, base: string | undefined): HttpReply {
  if (stored.bodyOmitted) {
    return problemReplyAt("alreadyDone", `already processed (HTTP ${stored.status}); the response was larger than the stored limit, so it cannot be replayed`, [], {}, base);
  }
  const reply = fromStored(stored);
  return { ...reply, headers: [...reply.headers, [REPLAYED_HEADER, "true"]] };
}

class HandlerFailed extends ToolError {
  constructor(
    readonly reply: HttpReply,
    message: string,
    retryable: boolean,
    /** A permanent failure's response, kept whole as the error's result. */
    readonly stored?: StoredResponse,
  ) {
    super(message, { retryable });
  }
}

/**
 * The middleware's one core, shared by every adapter: read the key, ask the gate, run the handler
 * only when the gate says execute, keep its response (status, kept headers, body) as the call's
 * outcome, and answer everything else per the draft: 400 no key, 409 concurrent, 422 payload
 * mismatch, the stored response on a completed key.
 */
export async function runIdempotent(options: IdempotencyOptions, incoming: IncomingHttp, handler: (ctx: HandlerContext) => Promise<HttpReply>): Promise<IdempotentAnswer> {
  const methods = (options.methods ?? ["POST", "PATCH"]).map((m) => m.toUpperCase());
  const base = problemBaseOf(options);
  const problemReply = (kind: ProblemKind, detail: string, headers: [string, string][] = [], extensions: Record<string, unknown> = {}) => problemReplyAt(kind, detail, headers, extensions, base);
  if (!methods.includes(incoming.method.toUpperCase())) return { kind: "pass" };
  const keyHeader = (options.keyHeader ?? "idempotency-key").toLowerCase();
  const source = readKeySource(incoming.header, keyHeader);
  if (source.kind === "invalid") return { kind: "answer", reply: problemReply("keyInvalid", source.detail) };
  if (source.kind === "missing") {
    if (options.required === false) return { kind: "pass" };
    return { kind: "answer", reply: problemReply("keyMissing", `${incoming.method} ${incoming.route} needs an Idempotency-Key header (a unique string per intended operation)`) };
  }

  const resendReason = readResendReason(incoming.header);
  if (resendReason === "invalid") return { kind: "answer", reply: problemReply("resendInvalid", `${RESEND_HEADER} must be the reason (1 to 2000 characters) the request should run again`) };

  const maxBytes = options.maxStoredBytes ?? DEFAULT_MAX_STORED_BYTES;
  let live: HttpReply | null = null;
  let result: CallResult<StoredResponse>;
  const spec = specFor(source, toolName(incoming.method, incoming.route), payloadArgs(incoming.target, incoming.body), incoming.caller);
  try {
    result = await options.gate.call<StoredResponse>(
      resendReason === null ? spec : { ...spec, bypass: { reason: resendReason } },
      async (ctx: ExecContext) => {
        const replayable = ctx.replayable !== false;
        const reply = await handler({ idempotencyKey: ctx.idempotencyKey, attempt: ctx.attempt, signal: ctx.signal, replayable });
        live = reply;
        const verdict = classifyStatus(reply.status);
        // The headers the route's policy keeps, and any the code adds.
        const keeps = headerKeeper([...(ctx.keepHeaders ?? DEFAULT_KEEP_HEADERS), ...(options.keepHeaders ?? [])]);
        const stored = fitsGate(toStored(reply, keeps, maxBytes), options.gate.transport.maxRequestBytes);
        if (verdict === "retryable") throw new HandlerFailed(reply, `HTTP ${reply.status}`, true);
        // Too large to keep on a replaying route: never recorded as a success a replay could not
        // reproduce. A permanent failure marked not replayable, so a duplicate is told it ran instead
        // of running again. A route that never replays records its success without the body.
        if (verdict === "permanent" || (stored.bodyOmitted && replayable)) throw permanentFailure(reply, stored);
        return stored;
      },
      { maxWaitMs: options.latchMs ?? 0, toolRetry: false, classifyError: classify },
    );
  } catch (error) {
    // The gate refused the request as the caller sent it (an id or route name with an invisible
    // character, a bound): sending it again cannot help, so neither a 503 nor a refused resend.
    if (error instanceof GateError && error.code === "invalid_input") {
      return { kind: "answer", reply: problemReply("badIdentity", error.message) };
    }
    // A body over the gate's bounds (nested too deep or too wide; too large for a begin): bad input
    // too, a 4xx naming the bound, never the 503 that tells the caller to send it again forever.
    if (error instanceof GateError && error.code === "invalid_json") return { kind: "answer", reply: problemReply("badIdentity", error.message) };
    if (error instanceof GateError && error.code === "payload_too_large") return { kind: "answer", reply: problemReply("tooLarge", error.message) };
    if (error instanceof GateError && (error.code.startsWith("bypass_") || (resendReason !== null && !error.retryable))) {
      // A resend the policy never allows (bypass: never), or a token refused: nothing ran, and retrying cannot help.
      return { kind: "answer", reply: problemReply("resendRefused", `it was not run again: ${error.message}`) };
    }
    // The gate is unreachable (its client already retried): nothing ran, so the caller may retry.
    const detail = error instanceof Error ? error.message : String(error);
    return { kind: "answer", reply: problemReply("gateUnavailable", `the idempotency gate did not answer: ${detail}`, [["retry-after", "1"]]) };
  }
  return answerFor(result, live, base);
}

function classify(error: unknown) {
  if (error instanceof HandlerFailed) return { message: error.message, retryable: error.retryable, ...(error.stored ? { result: error.stored } : {}) };
  // The handler threw instead of answering: a 500, released so that a retry runs it again.
  return { message: error instanceof Error ? error.message.slice(0, 2_000) : "handler failed", retryable: true };
}

function answerFor(result: CallResult<StoredResponse>, live: HttpReply | null, base: string | undefined): IdempotentAnswer {
  const problemReply = (kind: ProblemKind, detail: string, headers: [string, string][] = [], extensions: Record<string, unknown> = {}) => problemReplyAt(kind, detail, headers, extensions, base);
  switch (result.status) {
    case "executed":
    case "verified":
      return { kind: "executed", reply: live ?? fromStored(result.value) };
    case "replayed":
      if (result.argsMismatch) return { kind: "answer", reply: problemReply("mismatch", "this Idempotency-Key was used with a different request payload") };
      return { kind: "answer", reply: replay(result.value, base) };
    case "failed": {
      if (!result.replayed && live) return { kind: "executed", reply: live };
      const stored = storedFromError(result.error);
      if (stored) return { kind: "answer", reply: replay(stored, base) };
      // The handler threw instead of answering; the failure was released, so a retry runs it again.
      return { kind: "executed", reply: problemReply("handlerFailed", "the handler failed; retry with the same Idempotency-Key") };
    }
    case "lease_lost":
      // The handler ran but another attempt owns the key now: its effect stands, so answer it.
      return live ? { kind: "executed", reply: live } : { kind: "answer", reply: problemReply("inProgress", "another attempt owns this key", [["retry-after", "1"]]) };
    case "accepted":
      // Only an operator or another client can put an HTTP route's call in `accepted`: not done yet.
      return { kind: "answer", reply: problemReply("inProgress", `accepted as operation ${result.operationId}; not finished yet`, [["retry-after", "1"]]) };
    case "unknown_outcome":
      return { kind: "answer", reply: problemReply("inProgress", "an earlier attempt's outcome is unknown and waits for an operator", [["retry-after", "1"]]) };
    case "in_progress":
      return { kind: "answer", reply: problemReply("inProgress", "a request with this Idempotency-Key is still being processed; retry later", [["retry-after", "1"]]) };
    case "conflict":
      return { kind: "answer", reply: problemReply("mismatch", "this Idempotency-Key was used with a different request payload") };
    case "run_aborted":
      return { kind: "answer", reply: problemReply("runAborted", `not run: ${result.message}`) };
    case "refused":
      return {
        kind: "answer",
        reply: problemReply("alreadyDone", `already processed (${result.original.status} at ${result.original.completedAt}); to run it once more, send it again with an ${RESEND_HEADER}: <reason> header (an operator approves it where the policy asks)`),
      };
    case "approval_required":
      return {
        kind: "answer",
        reply: problemReply(
          "approvalRequired",
          `running it again needs an operator's approval (resend request ${result.requestId}); it was not run. Once an operator approves it in Idemgate's approvals inbox, send the same request again with the same ${RESEND_HEADER} header: it runs once.`,
          [],
          { resendRequestId: result.requestId },
        ),
      };
    case "blocked":
      if (result.reason === "budget_exceeded") return { kind: "answer", reply: problemReply("budgetExceeded", result.message ?? "the run has spent its budget") };
      return { kind: "answer", reply: problemReply("blocked", `the same requests repeated ${result.repeats} times`) };
    case "preview_required":
    case "preview_pending":
    case "preview_denied":
      // The route's policy asks for a preview (policy `preview`): an HTTP request carries none.
      return { kind: "answer", reply: problemReply("previewRequired", `the gate answered ${result.status}: preview this call through the agent API`) };
  }
}
