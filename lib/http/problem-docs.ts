import { PROBLEMS } from "../sdk/http/problem";
import { ERROR_STATUS } from "./errors";

/**
 * The documentation page of each problem type the HTTP tools answer with (RFC 9457: a problem's
 * `type` should lead to a page a person can read; the Idempotency-Key draft recommends it). The
 * middleware's and `/gw`'s own problems, and the gateway's route errors (its `ErrorCode`s).
 */
export interface ProblemDoc {
  slug: string;
  title: string;
  status: number;
  /** What happened, in a sentence or two. */
  meaning: string;
  /** What the client should do about it. */
  action: string;
}

type Explained = Pick<ProblemDoc, "meaning" | "action">;

const HTTP_TOOL_PROBLEMS: Record<keyof typeof PROBLEMS, Explained> = {
  keyMissing: { meaning: "The route is gated and the request carried no Idempotency-Key (nor Idemgate-Run-Id). Nothing ran.", action: "Send a unique key per intended operation in an Idempotency-Key header, and the same key on every retry of that operation." },
  keyInvalid: {
    meaning: "The Idempotency-Key header is not one sf-string (RFC 8941): another structured type, a malformed string, or two fields with different values. A bare key without quotes is accepted as a leniency. Nothing ran.",
    action: 'Send exactly one key, e.g. Idempotency-Key: "8e03978e-40d5-43e8-bc93-6894a57f9324".',
  },
  inProgress: { meaning: "A request with this key is still being processed (or waits for an operator), so this one did not run.", action: "Retry after the Retry-After seconds with the same key and payload: you get the first request's response." },
  alreadyDone: {
    meaning: "A request with this key was already processed, and its response cannot be replayed: it was larger than the stored limit, or the route's policy refuses duplicates.",
    action: "Do not send it again. To run it once more on purpose, send it with an Idemgate-Resend: <reason> header.",
  },
  mismatch: {
    meaning: "This key was used before with a different payload (method, route, path and query, body; numbers compared as written, no field ignored unless the route's policy says so). Nothing ran.",
    action: "Use a new key for a new operation; retry an operation with exactly the payload it was first sent with.",
  },
  approvalRequired: { meaning: "Running a completed request again needs an operator's approval; a resend request was filed (resendRequestId). Nothing ran.", action: "Once an operator approves it, send the same request again with the same Idemgate-Resend header: it runs once." },
  resendRefused: { meaning: "The request asked to run again (Idemgate-Resend) and the route's policy never allows it, or its approval was denied or used. Nothing ran.", action: "Do not resend it; ask an operator if the effect is really needed again." },
  resendInvalid: { meaning: "The Idemgate-Resend header is empty or longer than 2000 characters.", action: "Send the reason the request should run again, 1 to 2000 characters." },
  blocked: { meaning: "The run repeats the same requests: the loop detector stopped it. Nothing ran.", action: "Stop repeating; change the plan rather than retrying." },
  budgetExceeded: { meaning: "The run has spent its budget (calls or cost). Nothing ran.", action: "Stop the run, or ask an operator to raise its budget." },
  runAborted: { meaning: "The run was aborted (a saga compensating): it takes no new steps. Nothing ran.", action: "Do not retry within this run." },
  previewRequired: { meaning: "The route's policy wants an approved preview before a first execution, which an HTTP request cannot carry. Nothing ran.", action: "Preview the call through the agent API, or ask an operator to change the route's policy." },
  handlerFailed: { meaning: "The handler threw instead of answering. Its failure was released, so nothing is stored for the key.", action: "Retry with the same Idempotency-Key: it runs again." },
  gateUnavailable: { meaning: "The idempotency gate could not be reached, so it is unknown whether the key was used. Nothing ran.", action: "Retry after the Retry-After seconds with the same key." },
  tooLarge: { meaning: "The request body is over a bound of the gate (its request limit, or what a begin can carry). Bad input, not an outage: sending it again cannot help.", action: "Send a smaller body; the detail names the limit." },
  badPath: { meaning: "The gateway path has `.`, `..` or empty segments, which are never forwarded.", action: "Send the upstream path without them." },
  badIdentity: {
    meaning: "The gate refused the request as sent: an id or route with an invisible character, an id that is too long, or a body nested deeper or wider than the gate's bounds. Sending it again cannot help.",
    action: "Fix the request; the detail names what was refused.",
  },
  unknownUpstream: { meaning: "No upstream of that name is registered in the project.", action: "Check the upstream's name in the dashboard." },
  upstreamRefused: { meaning: "The upstream's address (or a redirect's) is not on the project's outbound allowlist, or is never called (a metadata or internal address).", action: "Ask an admin to allow the upstream's origin." },
  upstreamFailed: { meaning: "The upstream did not answer. Nothing is stored for the key.", action: "Retry with the same key: the gateway forwards it again with the same upstream key." },
};

/** The gateway's route errors: `type` is the error code with dashes. */
const ROUTE_ERRORS: Partial<Record<keyof typeof ERROR_STATUS, Explained>> = {
  unauthorized: { meaning: "The request carried no valid project API key.", action: "Send the project API key as Authorization: Bearer ig_…." },
  invalid_input: { meaning: "The request is malformed (the gateway path, an id).", action: "Fix the request; the detail says what is wrong." },
  not_found: { meaning: "What the request names does not exist (an upstream, a resend request).", action: "Check the name." },
  store_unavailable: { meaning: "The gate's store did not answer for a moment. Nothing ran.", action: "Retry after the Retry-After seconds." },
  contention: { meaning: "The record changed while the gate was deciding. Nothing ran.", action: "Retry after the Retry-After seconds." },
  internal: { meaning: "The gate failed unexpectedly. Nothing is stored for the key.", action: "Retry; report it if it persists." },
};

const GENERIC: Explained = { meaning: "The gate refused the request.", action: "The problem's detail says why." };

const titleOf = (code: string) => code.replaceAll("_", " ");

export const PROBLEM_DOCS: readonly ProblemDoc[] = [
  ...Object.entries(PROBLEMS).map(([kind, { slug, title, status }]) => ({ slug, title, status, ...HTTP_TOOL_PROBLEMS[kind as keyof typeof PROBLEMS] })),
  ...Object.entries(ERROR_STATUS).map(([code, { status }]) => ({ slug: code.replaceAll("_", "-"), title: titleOf(code), status, ...(ROUTE_ERRORS[code as keyof typeof ERROR_STATUS] ?? GENERIC) })),
];

export function problemDoc(slug: string): ProblemDoc | null {
  return PROBLEM_DOCS.find((doc) => doc.slug === slug) ?? null;
}

/** Where the pages live, below the gate's public origin: `type` is this plus the slug. */
export const PROBLEM_DOCS_PATH = "/problems/";
