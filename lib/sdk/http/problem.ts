/** An RFC 9457 problem; the draft's error answers use them. */
export interface Problem {
  type: string;
  title: string;
  status: number;
  detail: string;
  [extension: string]: unknown;
}

export const PROBLEMS = {
  keyMissing: { slug: "idempotency-key-missing", title: "Idempotency-Key is missing", status: 400 },
  keyInvalid: { slug: "idempotency-key-invalid", title: "Idempotency-Key is malformed", status: 400 },
  inProgress: { slug: "request-in-progress", title: "A request with this Idempotency-Key is being processed", status: 409 },
  alreadyDone: { slug: "request-already-processed", title: "A request with this Idempotency-Key was already processed", status: 409 },
  mismatch: { slug: "idempotency-key-reused", title: "Idempotency-Key reused with a different payload", status: 422 },
  approvalRequired: { slug: "resend-approval-required", title: "Running this request again needs an operator's approval", status: 409 },
  resendRefused: { slug: "resend-refused", title: "This request may not run again", status: 403 },
  resendInvalid: { slug: "resend-invalid", title: "Idemgate-Resend is malformed", status: 400 },
  blocked: { slug: "loop-detected", title: "The run repeats the same requests", status: 429 },
  budgetExceeded: { slug: "budget-exceeded", title: "The run has spent its budget", status: 429 },
  runAborted: { slug: "run-aborted", title: "The run was aborted: it takes no new steps", status: 409 },
  previewRequired: { slug: "preview-required", title: "The request needs an approved preview first", status: 428 },
  handlerFailed: { slug: "handler-failed", title: "The request failed", status: 500 },
  gateUnavailable: { slug: "idempotency-unavailable", title: "Idempotency could not be checked", status: 503 },
  tooLarge: { slug: "request-too-large", title: "The request body is too large", status: 413 },
  badPath: { slug: "bad-path", title: "The path cannot be forwarded", status: 400 },
  badIdentity: { slug: "invalid-identity", title: "The gate refused the request as sent (its route, ids or size)", status: 400 },
  unknownUpstream: { slug: "unknown-upstream", title: "No such upstream", status: 404 },
  upstreamRefused: { slug: "upstream-refused", title: "The upstream is not allowed", status: 403 },
  upstreamFailed: { slug: "upstream-unreachable", title: "The upstream could not be reached", status: 502 },
} as const;

export type ProblemKind = keyof typeof PROBLEMS;

/**
 * A problem of this kind. `typeBase` is where the gate serves its problem pages
 * (`https://gate.example/problems/`): `type` is then the page of this problem (RFC 9457: a type
 * should lead to documentation). Without one (a gate in process that names no URL) the type is the
 * URN `urn:idemgate:problem:<slug>`, the same identifier.
 */
export function problem(kind: ProblemKind, detail: string, extensions: Record<string, unknown> = {}, typeBase?: string): Problem {
  const { slug, title, status } = PROBLEMS[kind];
  return { type: problemType(slug, typeBase), title, status, detail, ...extensions };
}

export function problemType(slug: string, typeBase?: string): string {
  return typeBase ? `${typeBase}${slug}` : `urn:idemgate:problem:${slug}`;
}

/** The problem pages under a gate's origin (app/problems). */
export function problemTypeBase(origin: string): string {
  return `${origin.replace(/\/+$/, "")}/problems/`;
}
