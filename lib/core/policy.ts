import { DEFAULT_IGNORE_FIELDS } from "./canonical";

export type Effect = "read" | "write" | "async";
export type KeyStrategy = "step" | "scope" | "args" | "toolCallId";
export type OnDuplicate = "replay" | "refuse" | "execute";
export type OnArgsMismatch = "replay" | "reject";
export type BypassMode = "never" | "approval" | "allow";

export interface RetryAdvice {
  maxAttempts: number;
  initialDelayMs: number;
  backoffFactor: number;
  maxDelayMs: number;
}

export interface LoopPolicy {
  enabled: boolean;
  repeats: number;
  maxCycleLength: number;
  action: "block" | "warn";
}

export interface StormPolicy {
  windowSeconds: number;
  minHits: number;
  factor: number;
  /** Without a baseline (the gate's own first windows): hits a window needs… */
  absoluteMinHits: number;
  /** …and the share of its begins they must be (0–1). */
  absoluteDedupRate: number;
}

/**
 * Per-run budget (budgets): every execution of a budgeted tool counts against its run's counter; a
 * begin that would pass a limit is answered `blocked` (reason `budget_exceeded`). Null = no limit.
 */
export interface BudgetPolicy {
  maxCallsPerRun: number | null;
  /** In `currency`; counts each execution's `costPerExecution` and the costs reported on complete. */
  maxCostPerRun: number | null;
  /** ISO 4217 code the limits and reported costs are in. */
  currency: string;
  /** Charged when the tool executes (0: only what complete reports). */
  costPerExecution: number;
}

/** enforce: the gate's decision is the answer; shadow: the decision is recorded as `would_…` and the answer is `execute`. */
export type GateMode = "enforce" | "shadow";

/** Per-tool settings, exactly the table in DESIGN.md. */
export interface ToolPolicy {
  effect: Effect;
  keyStrategy: KeyStrategy;
  ignoreFields: string[];
  onDuplicate: OnDuplicate;
  onArgsMismatch: OnArgsMismatch;
  bypass: BypassMode;
  ttlSeconds: number;
  /** How long an accepted (started, not finished) operation is kept and replayed by its id. */
  acceptedTtlSeconds: number;
  leaseSeconds: number;
  /**
   * Liveness: a holder is dead only once it has been silent (no beat) for the lease plus this
   * grace. A holder whose beats are merely late (a starved process, an event loop busy for seconds,
   * a GC pause) keeps its key, and a late beat renews the lease as long as nobody took over.
   */
  leaseGraceSeconds: number;
  cacheFailures: boolean;
  retry: RetryAdvice;
  loop: LoopPolicy;
  storm: StormPolicy;
  redactFields: string[];
  /** Sagas: `compensate` aborts the run (and so undoes its compensable steps) when this tool fails permanently. */
  onPermanentFailure: "none" | "compensate";
  /** JSON pointers into the args whose values are the call's scope when the caller names none. */
  scopeFrom: string[];
  /** Previews: `required` wants a dry run's preview token before a first execution; `approve` also a human's approval. */
  preview: "none" | "required" | "approve";
  /** HTTP tools (a route is a tool named `POST /v1/refunds`): response headers a replay reproduces; `x-*` matches a prefix. */
  keepHeaders: string[];
  /** MCP gateway: whether an upstream tool's own error result (`isError`) is a permanent or a retryable failure. */
  toolErrors: "permanent" | "retryable";
  budget: BudgetPolicy;
  mode: GateMode;
}

/**
 * What one layer (the project's `*` policy, or a tool's own) sets. Scalars and lists replace the
 * inherited value; the nested objects (retry, loop, storm) are inherited field by field.
 */
export type PolicyOverrides = Partial<Omit<ToolPolicy, NestedField>> & {
  retry?: Partial<RetryAdvice>;
  loop?: Partial<LoopPolicy>;
  storm?: Partial<StormPolicy>;
  budget?: Partial<BudgetPolicy>;
};

export const NESTED_FIELDS = ["retry", "loop", "storm", "budget"] as const;
export type NestedField = (typeof NESTED_FIELDS)[number];

/** The tool name of the project-wide layer every tool inherits from. */
export const PROJECT_DEFAULT_TOOL = "*";

/**
 * A policy together with the revision it came from, so every decision can name it. Revisions are
 * numbered per project; a tool's version is the later of its own and the `*` layer's.
 */
export interface EffectivePolicy {
  policy: ToolPolicy;
  version: number;
}

/** The response headers HTTP tools keep for replays unless their policy names others: content and caching headers, and `x-*`. */
export const DEFAULT_KEEP_HEADERS: readonly string[] = ["content-type", "content-language", "content-location", "location", "etag", "last-modified", "link", "cache-control", "x-*"];

/** Whether a tool's outcome is ever replayed: never under effect read or onDuplicate execute/refuse, so a tool need not store it whole. */
export function replaysOutcomes(policy: ToolPolicy): boolean {
  return policy.effect !== "read" && policy.onDuplicate === "replay";
}

export const DEFAULT_POLICY: Readonly<ToolPolicy> = Object.freeze<ToolPolicy>({
  effect: "write",
  keyStrategy: "step",
  ignoreFields: [...DEFAULT_IGNORE_FIELDS],
  onDuplicate: "replay",
  onArgsMismatch: "replay",
  bypass: "approval",
  ttlSeconds: 86_400,
  acceptedTtlSeconds: 604_800,
  leaseSeconds: 30,
  leaseGraceSeconds: 0,
  cacheFailures: true,
  retry: { maxAttempts: 3, initialDelayMs: 1_000, backoffFactor: 2, maxDelayMs: 30_000 },
  loop: { enabled: true, repeats: 3, maxCycleLength: 2, action: "block" },
  storm: { windowSeconds: 60, minHits: 20, factor: 5, absoluteMinHits: 100, absoluteDedupRate: 0.9 },
  redactFields: [],
  onPermanentFailure: "none",
  scopeFrom: [],
  preview: "none",
  keepHeaders: [...DEFAULT_KEEP_HEADERS],
  toolErrors: "permanent",
  budget: { maxCallsPerRun: null, maxCostPerRun: null, currency: "USD", costPerExecution: 0 },
  mode: "enforce",
});

/** Whether executions of a tool under this policy are counted against their run's budget. */
export function hasBudget(policy: ToolPolicy): boolean {
  return policy.budget.maxCallsPerRun !== null || policy.budget.maxCostPerRun !== null;
}

export const DEFAULT_EFFECTIVE_POLICY: EffectivePolicy = { policy: DEFAULT_POLICY, version: 0 };

/**
 * An HTTP route's tool name, as the middleware and `/gw` name them: the method, a space, the route
 * (`POST /v1/refunds`, `PATCH /gw/pay/v1/charges`).
 */
const HTTP_ROUTE_TOOL = /^[A-Z][A-Z-]* \//;

export function isHttpRouteTool(tool: string): boolean {
  return HTTP_ROUTE_TOOL.test(tool);
}

/**
 * The built-in policy of an HTTP route: the defaults, except that no field is ignored. A route's
 * payload is what its client sent, so two bodies that differ in a `timestamp` or `requestId` are
 * two payloads (a 422 for one key), unless the route's own policy lists fields to ignore.
 */
export const HTTP_ROUTE_DEFAULT_POLICY: Readonly<ToolPolicy> = Object.freeze<ToolPolicy>({ ...DEFAULT_POLICY, ignoreFields: [] });

/** The built-in policy a tool starts from: an HTTP route's (no field ignored) or every other tool's. */
export function builtinPolicyFor(tool: string): Readonly<ToolPolicy> {
  return isHttpRouteTool(tool) ? HTTP_ROUTE_DEFAULT_POLICY : DEFAULT_POLICY;
}

export function defaultEffectivePolicyFor(tool: string): EffectivePolicy {
  return isHttpRouteTool(tool) ? { policy: HTTP_ROUTE_DEFAULT_POLICY, version: 0 } : DEFAULT_EFFECTIVE_POLICY;
}
