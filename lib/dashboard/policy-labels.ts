/**
 * Human labels and help for policy fields, in the words of the dashboard (the API keeps its field
 * names; the editor shows the name only as a small hint). A field this table does not know yet
 * (a later addition) gets its name spelled out and the schema's description.
 */
export interface PolicyLabel {
  label: string;
  help: string;
}

const LABELS: Record<string, PolicyLabel> = {
  effect: { label: "Side effect", help: "Read: recorded, never deduplicated. Write: duplicates are deduplicated. Async: like write, and an attempt that vanished is answered “verify” so the agent checks downstream first." },
  keyStrategy: { label: "Key derived from", help: "Step: run, tool and step (or scope) — survives re-plans and paraphrased arguments. Scope: tool and business scope, across runs. Args: run, tool and the arguments. Tool call id: every model call acts." },
  ignoreFields: { label: "Ignored argument fields", help: "Comma-separated fields dropped before the arguments are compared (request ids, timestamps). Replaces the inherited list." },
  onDuplicate: { label: "On a duplicate", help: "Replay: answer with the stored outcome. Refuse: answer “already done”. Execute: always run again." },
  onArgsMismatch: { label: "Same key, different arguments", help: "Replay the stored outcome and flag the difference, or reject the call as a conflict." },
  bypass: { label: "Resends", help: "Whether a completed call may run once more: never, after a human approves, or whenever an agent asks." },
  ttlSeconds: { label: "Keep outcomes for (seconds)", help: "How long a finished call's outcome is kept and replayed. 86 400 s is one day." },
  acceptedTtlSeconds: { label: "Keep accepted operations for (seconds)", help: "How long a long-running, unfinished operation is kept and replayed by its operation id." },
  leaseSeconds: { label: "Lease (seconds)", help: "How long an attempt may run without a heartbeat before another may take over." },
  leaseGraceSeconds: { label: "Lease grace (seconds)", help: "A holder whose heartbeats are late (a starved machine) keeps its key this long past its lease; only a holder silent for the lease plus this grace is taken over." },
  cacheFailures: { label: "Replay permanent failures", help: "Yes: a permanent failure is replayed like a success. Retryable failures are never replayed." },
  keepHeaders: { label: "HTTP: headers replayed", help: "For HTTP routes (tools named like POST /v1/refunds): comma-separated response headers a replay sends again; x-* keeps every header starting with x-. Set-Cookie never." },
  mode: { label: "Mode", help: "Enforce: the gate's decision is the answer. Shadow: every call runs as without Idemgate; the gate records what it would have done (would replay, would block, …)." },
  "budget.maxCallsPerRun": { label: "Budget: calls per run", help: "Executions one run may make (empty: no limit). A begin past it answers blocked (budget_exceeded); replays are free." },
  "budget.maxCostPerRun": { label: "Budget: cost per run", help: "What one run may spend, in the budget's currency (empty: no limit)." },
  "budget.currency": { label: "Budget: currency", help: "The currency of the cost limit and of the costs counted against it." },
  "budget.costPerExecution": { label: "Budget: cost per execution", help: "Charged to the run each time the tool executes; costs reported on complete are added." },
  toolErrors: { label: "MCP tool errors", help: "Permanent: an upstream tool's error result is recorded and replayed like any permanent failure. Retryable: it is released, so the next identical call runs the tool again." },
  "mcp.runWindowSeconds": { label: "MCP: run window (seconds)", help: "An MCP client that names no run (Claude Desktop, Cursor, a bare SDK client) has its identical calls deduplicated within this window, across reconnects, new sessions and restarts; later, the same call runs again. A client that sends a run id keeps the full TTL." },
  "mcp.timeoutSeconds": { label: "MCP: upstream timeout (seconds)", help: "The longest the gateway waits for an upstream tool's answer; shorter when the client will not wait that long. Past it, the outcome is unknown and a retry is told to verify, never run again blindly." },
  redactFields: { label: "Masked fields", help: "Comma-separated fields masked at any depth before arguments or results are stored." },
  "retry.maxAttempts": { label: "Retry: attempts", help: "How many times the SDK tries a transient failure, the first attempt included." },
  "retry.initialDelayMs": { label: "Retry: first delay (ms)", help: "How long the SDK waits before its first retry, in milliseconds." },
  "retry.backoffFactor": { label: "Retry: backoff factor", help: "Each retry waits this many times longer than the one before." },
  "retry.maxDelayMs": { label: "Retry: longest delay (ms)", help: "The SDK never waits longer than this between retries, in milliseconds." },
  "loop.enabled": { label: "Loop detection", help: "Watch each run for the same calls repeating in a cycle." },
  "loop.repeats": { label: "Loop: repeats to trip", help: "How many times in a row a cycle must repeat before it counts as a loop." },
  "loop.maxCycleLength": { label: "Loop: longest cycle", help: "The longest cycle of calls looked for (1: the same call again and again)." },
  "loop.action": { label: "Loop: action", help: "Block: answer “blocked” and stop the run. Warn: decide as usual and flag it." },
  "storm.windowSeconds": { label: "Storm: window (seconds)", help: "Dedup hits are counted per window of this many seconds." },
  "storm.minHits": { label: "Storm: minimum hits", help: "A window needs at least this many dedup hits to open a storm." },
  "storm.factor": { label: "Storm: times the baseline", help: "A window opens a storm at this many times the tool's usual dedup hits." },
};

/** `retry.initialDelayMs` → "Retry: initial delay ms". */
function spelled(path: string): string {
  const words = path
    .split(".")
    .map((part) => part.replace(/([a-z0-9])([A-Z])/g, "$1 $2").toLowerCase())
    .join(": ");
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** References to documents an operator does not have ("(DESIGN.md, Key strategies)") are dropped. */
const withoutDocRefs = (text: string) => text.replace(/\s*\([^)]*DESIGN\.md[^)]*\)/g, "").trim();

export function policyLabel(path: string, description?: string): PolicyLabel {
  return LABELS[path] ?? { label: spelled(path), help: description ? withoutDocRefs(description) : "" };
}
