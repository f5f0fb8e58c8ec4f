import { type Client, ProtocolError, SdkError, SdkErrorCode } from "@modelcontextprotocol/client";
import { DEFAULT_EFFECTIVE_POLICY } from "../../../core/policy";
import type { BeginDecision } from "../../../core/record";
import type { McpToolList } from "../../../contract/upstreams";
import { AppError } from "../../app-error";
import type { GateService } from "../../gate/gate-service";
import type { PolicyService } from "../../policies/policy-service";
import type { BypassAsk } from "../../resends/resend-bypass";
import { SEED_AUTHOR, type ToolAnnotations, pickHints, seedFromAnnotations } from "./annotation-policies";
import type { ResolvedUpstream, UpstreamService } from "../upstreams/upstream-service";
import { withMcpServerSpan, withUpstreamCallSpan } from "../../../telemetry/mcp-telemetry";
import { META, type McpCallIdentity, type McpCaller, identifyCall } from "./call-identity";
import { type ToolResult, downstreamMeta, gateError, isToolResult, refusalResult, replayResult, resultText, stripGateMeta, unknownOutcomeResult, withGateMeta, withTiming } from "./decision-results";
import { MAX_OPERATOR_ROUNDS, type OperatorSignOff, type OperatorWait, isOperatorWait } from "./operator-sign-off";
import { type UpstreamConnector, describeCause } from "./upstream-connector";
import { upstreamDeadline } from "./upstream-deadline";
import { LOG_LEVEL_META_KEY, type LogRelay } from "./upstream-logs";
import { type UpstreamFailure, classifyUpstreamFailure } from "./upstream-errors";

/** How long a duplicate latches onto a running attempt before it is told "still running". */
export const LATCH_WAIT_MS = 10_000;
/** How long a cancelled call's upstream answer is still awaited (and recorded) after the cancel was passed on. */
export const CANCEL_GRACE_MS = 5_000;
/** Gate tool names are `<upstream>__<tool>`, so one project's upstreams never share a policy by accident. */
export const TOOL_SEPARATOR = "__";

export function gateToolName(upstream: string, tool: string): string {
  return `${upstream}${TOOL_SEPARATOR}${tool}`;
}

export interface ToolCallParams {
  name: string;
  arguments?: Record<string, unknown>;
  /**
   * The arguments with every number as written (lib/sdk/exact-json.ts), when the body had one a
   * double cannot hold: what the gate fingerprints, so two accounts past 2^53 are two calls.
   */
  exactArguments?: unknown;
  _meta?: Record<string, unknown>;
  idempotencyKey?: unknown;
}

export interface CallIo {
  signal: AbortSignal;
  /**
   * Aborted when the client cancels this call explicitly (`notifications/cancelled`): the
   * cancellation is passed upstream. Not `signal`: a client that merely goes away (a timeout
   * without a cancel, a crash, a closed stream) leaves the upstream to finish, so the outcome is
   * recorded and its retry replays it.
   */
  cancelled?: AbortSignal;
  /** Set when the client asked for progress: upstream progress is passed on through it. */
  onProgress?: (progress: { progress: number; total?: number; message?: string }) => void;
  /**
   * Set for a 2026-07-28 request from a client that takes URL elicitations: a call waiting for an
   * operator answers an OperatorWait (an input_required result) instead of failing. `round` counts
   * the waits this call has had.
   */
  interactive?: { round: number };
  /** Set when the client asked for log messages: the upstream's, sent while the tool runs, are relayed. */
  log?: LogRelay;
  /** Filled in by the call: how long the upstream took, so the result can say what the gateway's share was. */
  timing?: { upstreamMs: number };
  /**
   * When the server took the request (performance.now()), so the gateway's share counts its auth,
   * body, session and SDK work too, not only the gate's; the start of callTool when not given.
   */
  receivedAt?: number;
}

/** A lease this gateway holds, and whether its call is in an anonymous run (its outcome then kept for the run window only). */
type Execute = Extract<BeginDecision, { decision: "execute" }> & { runWindowed?: boolean };

/**
 * tools/call through the gate: begin, then forward only on `execute` and complete with the
 * upstream's CallToolResult; every other decision becomes a result the model can read. Nothing
 * here knows HTTP or the MCP wire: the server factory hands in parsed params.
 */
export class McpGateway {
  constructor(
    private readonly gate: GateService,
    private readonly upstreams: UpstreamService,
    private readonly connector: UpstreamConnector,
    private readonly checkOutbound: (projectId: string, url: string) => Promise<void>,
    private readonly policies: PolicyService,
    private readonly signOff: OperatorSignOff,
  ) {}

  /** Tools this process has already seeded (or found a policy for): a hint, so each is tried once. */
  private readonly seen = new Set<string>();

  resolve(projectId: string, name: string): Promise<ResolvedUpstream> {
    return this.upstreams.resolve(projectId, name, "mcp");
  }

  async listTools(upstream: ResolvedUpstream, signal: AbortSignal): Promise<{ tools: unknown[] }> {
    await this.assertReachable(upstream);
    const client = await this.connector.client(upstream);
    try {
      const { tools } = await client.listTools(undefined, { signal });
      await this.seedPolicies(upstream, tools);
      return { tools };
    } catch (error) {
      this.connector.forget(upstream, client);
      throw error;
    }
  }

  /**
   * Every MCP upstream's tools with their annotations, for the tools page (listing them is also a
   * first sight: it seeds their policies). An upstream that cannot be listed is named, not fatal.
   */
  async toolsOfProject(projectId: string, signal: AbortSignal): Promise<McpToolList> {
    const list: McpToolList = { tools: [], unreachable: [] };
    const upstreams = (await this.upstreams.list(projectId)).filter((row) => row.kind === "mcp");
    for (const row of upstreams) {
      try {
        const { tools } = await this.listTools(await this.resolve(projectId, row.name), signal);
        for (const tool of tools as { name: string; annotations?: ToolAnnotations }[]) {
          list.tools.push({ tool: gateToolName(row.name, tool.name), upstream: row.name, name: tool.name, annotations: pickHints(tool.annotations) });
        }
      } catch (error) {
        list.unreachable.push({ upstream: row.name, message: error instanceof Error ? error.message.slice(0, 500) : String(error) });
      }
    }
    return list;
  }

  /**
   * A request that is not a tool call (resources, prompts, completions): read-only by the spec, so
   * it passes through ungated, still only to an upstream the allowlist permits.
   */
  async forward<T>(upstream: ResolvedUpstream, send: (client: Client) => Promise<T>): Promise<T> {
    await this.assertReachable(upstream);
    const client = await this.connector.client(upstream);
    try {
      return await send(client);
    } catch (error) {
      if (!(error instanceof ProtocolError)) this.connector.forget(upstream, client);
      throw error;
    }
  }

  /**
   * A client of this upstream for one session's resource subscriptions alone (its own GET stream
   * upstream, so updates are not mixed with other sessions'), closed by its caller.
   */
  async subscriber(upstream: ResolvedUpstream, setup: (client: Client) => void): Promise<Client> {
    await this.assertReachable(upstream);
    return this.connector.ownClient(upstream, setup);
  }

  callTool(caller: McpCaller, upstream: ResolvedUpstream, params: ToolCallParams, io: CallIo): Promise<ToolResult | OperatorWait> {
    const gateTool = gateToolName(upstream.row.name, params.name);
    const call = { tool: params.name, gateTool, sessionId: caller.sessionId, upstream: upstream.row.name, meta: params._meta };
    return withMcpServerSpan(call, async (span) => {
      const started = io.receivedAt ?? performance.now();
      const timing = { upstreamMs: 0 };
      const answered = await this.gatedCall(caller, upstream, params, { ...io, timing });
      if (isOperatorWait(answered)) {
        span.setAttribute("idemgate.decision", answered.awaitOperator.decision);
        return answered;
      }
      const result = withTiming(answered, performance.now() - started, timing.upstreamMs);
      const meta = result._meta ?? {};
      span.setAttribute("idemgate.decision", String(meta[META.decision]));
      if (typeof meta[META.callId] === "string") span.setAttribute("gen_ai.tool.call.id", meta[META.callId] as string);
      if (result.isError) span.setAttribute("error.type", "tool_error");
      return result;
    });
  }

  private async gatedCall(caller: McpCaller, upstream: ResolvedUpstream, params: ToolCallParams, io: CallIo): Promise<ToolResult | OperatorWait> {
    const tool = gateToolName(upstream.row.name, params.name);
    try {
      await this.assertReachable(upstream);
    } catch (error) {
      return gateError(`${tool} was not run: ${error instanceof Error ? error.message : String(error)}. Retrying will not help until an admin changes the upstream or the allowlist.`, { decision: "refused_outbound" }, { "idemgate/retryable": false });
    }
    if (!this.seen.has(`${caller.projectId}\u0000${tool}`)) {
      // First sight in this process of a tool the client never listed: seed from its annotations.
      await this.listTools(upstream, io.signal).catch(() => undefined);
    }
    const { resendReason, ...identity } = identifyCall({ meta: params._meta, idempotencyKey: params.idempotencyKey, runHeader: caller.runHeader, apiKeyId: caller.apiKeyId });
    // Fingerprinted with its numbers as written; the upstream is sent the arguments as parsed.
    const args = (params.exactArguments ?? params.arguments ?? {}) as Record<string, unknown>;
    const begin = (bypass?: BypassAsk, previewToken?: string) => this.gate.begin(caller.projectId, { tool, ...identity, args, waitMs: LATCH_WAIT_MS, bypass, previewToken });
    let decision: BeginDecision;
    try {
      decision = await begin(resendReason ? { reason: resendReason, actor: caller.actor } : undefined);
      if (decision.decision === "approval_required") {
        // Asked again after an operator approved: the approved request's single-use token runs it
        // once, under the key's next generation. Pending, it stays approval_required.
        const token = await this.signOff.resendToken(caller, decision.requestId);
        if (token) decision = await begin({ token, actor: caller.actor });
      } else if (decision.decision === "preview_required") {
        const signed = await this.signOff.previewToken(caller, { tool, upstreamTool: params.name, upstream: upstream.row.name, identity, args });
        if ("token" in signed) decision = await begin(undefined, signed.token);
        else if ("denied" in signed) {
          return gateError(`${tool} was not run: an operator denied its preview (${signed.denied.id})${signed.denied.decisionNote ? `: ${signed.denied.decisionNote}` : ""}. Do not retry it; tell the user.`, { decision: "preview_denied", key: decision.key }, { "idemgate/previewId": signed.denied.id, "idemgate/retryable": false });
        } else {
          return this.waitForOperator(gatePreviewWait(tool, decision.key, signed.pending.id), io, caller);
        }
      }
    } catch (error) {
      if (error instanceof AppError && error.code === "bypass_forbidden") {
        return gateError(`${tool} cannot be run again: its policy never allows a resend. Do not retry.`, { decision: "refused" }, { "idemgate/retryable": false });
      }
      if (error instanceof AppError && (error.code === "store_unavailable" || error.code === "contention")) {
        return gateError(`${tool} was not run: the gate is unavailable for a moment. Nothing happened; call it again with the same arguments.`, { decision: "unavailable" }, { "idemgate/retryable": true });
      }
      // An id the gate refuses (an invisible character in the tool's name or a `_meta` id): the
      // same call can never be keyed, so it is not retryable.
      if (error instanceof AppError && error.code === "invalid_input") {
        return gateError(`${tool} was not run: ${error.message}. Nothing happened; do not retry it unchanged.`, { decision: "invalid" }, { "idemgate/retryable": false });
      }
      throw error;
    }
    if (decision.decision === "execute" && decision.recovered) {
      // An earlier attempt's lease ran out without an answer: the gateway lost the upstream's
      // response (a broken stream, a crashed instance), so it may have run. Never re-run it
      // silently: the caller and an operator check first.
      return unknownOutcomeResult(decision, tool);
    }
    if (decision.decision === "execute") return this.execute(caller, upstream, params, identity, { ...decision, runWindowed: identity.runWindowed }, io);
    if (decision.decision === "replay") return replayResult(decision, tool);
    if (decision.decision === "approval_required" && io.interactive && io.interactive.round < MAX_OPERATOR_ROUNDS) {
      const message = `Running ${tool} again needs an operator's approval (resend request ${decision.requestId}). It has not run. Open Idemgate's Approvals page, or ask an operator to; continue once they have approved.`;
      return { awaitOperator: { message, path: `/projects/${encodeURIComponent(caller.projectId)}/approvals`, round: io.interactive.round, decision: "approval_required" } };
    }
    return refusalResult(decision, tool);
  }

  /** A preview waiting for an operator: a wait for a client that can wait, otherwise an isError result that says so. */
  private waitForOperator(wait: { message: string; refusal: string; previewId: string; key: string }, io: CallIo, caller: McpCaller): ToolResult | OperatorWait {
    if (io.interactive && io.interactive.round < MAX_OPERATOR_ROUNDS) {
      return { awaitOperator: { message: wait.message, path: `/projects/${encodeURIComponent(caller.projectId)}/approvals`, round: io.interactive.round, decision: "preview_required" } };
    }
    return gateError(wait.refusal, { decision: "preview_required", key: wait.key }, { "idemgate/previewId": wait.previewId });
  }

  private async execute(caller: McpCaller, upstream: ResolvedUpstream, params: ToolCallParams, identity: Pick<McpCallIdentity, "runId" | "runWindowed">, decision: Execute, io: CallIo): Promise<ToolResult> {
    const tool = gateToolName(upstream.row.name, params.name);
    const stopHeartbeat = this.keepLease(caller.projectId, decision);
    let client: Client | null = null;
    let cancelAsked = false;
    // Aborted only when a cancelled call's grace has run out: then the SDK stops waiting too.
    const giveUp = new AbortController();
    let grace: NodeJS.Timeout | undefined;
    // A stdio upstream is one child process: a call of its own would start another, so its logs are not relayed.
    const relay = upstream.row.transport === "streamable_http" ? io.log : undefined;
    try {
      client = relay ? await this.connector.dedicated(upstream, relay) : await this.connector.client(upstream);
      const upstreamClient = client;
      if (io.cancelled?.aborted) throw io.cancelled.reason;
      const logLevel = relay ? { [LOG_LEVEL_META_KEY]: relay.level } : {};
      const onCancel = () => {
        cancelAsked = true;
        const reason = io.cancelled?.reason instanceof Error ? io.cancelled.reason.message : "cancelled by the client";
        // Passed on at once, but the answer is still awaited for a while: an upstream that finishes
        // anyway (or ignores cancels) has its outcome recorded, and the client's retry replays it.
        void this.connector.cancelCall(upstreamClient, decision.key, reason).catch(() => false);
        grace = setTimeout(() => giveUp.abort(io.cancelled?.reason), CANCEL_GRACE_MS);
      };
      io.cancelled?.addEventListener("abort", onCancel, { once: true });
      // The upstream's response stream ended without an answer (a cut stream): none can come any
      // more, so the call is answered "outcome unknown" now, not at the upstream timeout.
      this.connector.onStreamEnd(upstreamClient, decision.key, () => giveUp.abort(new SdkError(SdkErrorCode.ConnectionClosed, "the upstream's response stream ended without an answer")));
      const deadline = upstreamDeadline({ policyTimeoutMs: this.upstreamTimeoutMs(caller.projectId, tool), meta: params._meta, progress: io.onProgress !== undefined });
      let result: unknown;
      const sentAt = performance.now();
      try {
        result = await withUpstreamCallSpan(params.name, upstream.row.name, (traceMeta) =>
          upstreamClient.callTool(
            // The key travels downstream as the upstream's own idempotency key.
            { name: params.name, arguments: params.arguments, _meta: { ...downstreamMeta(params._meta), ...traceMeta, ...logLevel, "idemgate/key": decision.key, "idemgate/runId": identity.runId } },
            // Not the client's stream signal: a client that goes away (a timeout without a cancel, a
            // crash, a closed stream) must not leave the outcome unknown. The upstream finishes, the
            // outcome is recorded, and the client's retry latches onto it and replays it.
            { onprogress: io.onProgress, ...deadline, signal: giveUp.signal },
          ),
        );
      } finally {
        if (io.timing) io.timing.upstreamMs = performance.now() - sentAt;
        io.cancelled?.removeEventListener("abort", onCancel);
        clearTimeout(grace);
        this.connector.settled(upstreamClient, decision.key);
      }
      if (!isToolResult(result)) throw new Error("not a tool result");
      stopHeartbeat();
      const stored = stripGateMeta(result as ToolResult);
      if (!stored.isError) {
        await this.complete(caller.projectId, decision, { outcome: "succeeded", result: stored });
        return withGateMeta(stored, decision, { "idemgate/attempt": decision.attempt });
      }
      // The tool's own error: a failure, permanent or retryable as the tool's policy says.
      const retryable = (await this.policies.effective(caller.projectId, tool)).policy.toolErrors === "retryable";
      await this.complete(caller.projectId, decision, { outcome: "failed", error: { message: resultText(stored), retryable } });
      return withGateMeta(stored, decision, { "idemgate/attempt": decision.attempt, "idemgate/retryable": retryable });
    } catch (error) {
      stopHeartbeat();
      if (client && !relay && !cancelAsked && !io.cancelled?.aborted) this.connector.forget(upstream, client);
      if (io.cancelled?.aborted && !cancelAsked) {
        // Cancelled before anything was sent: nothing ran, so the key is released.
        return this.failed(caller.projectId, tool, decision, { kind: "not_run", message: "cancelled by the client before it was sent" });
      }
      if (cancelAsked) {
        // Cancelled while the upstream ran, and no result came back (it stopped, answered an error,
        // or the grace ran out): it may have taken effect. A lost answer: the retry gets verify once
        // the lease lapses, never a silent second run.
        return this.failed(caller.projectId, tool, decision, { kind: "unknown", message: `cancelled by the client while it ran (${describeCause(error)}); the cancellation was passed to the upstream` });
      }
      return this.failed(caller.projectId, tool, decision, classifyUpstreamFailure(error));
    } finally {
      if (client && relay) void client.close().catch(() => undefined);
    }
  }

  private async failed(projectId: string, tool: string, decision: Execute, failure: UpstreamFailure): Promise<ToolResult> {
    if (failure.kind === "not_run") {
      // Released: the next call runs it, and nothing is recorded as executed.
      await this.complete(projectId, decision, { outcome: "failed", error: { message: failure.message, retryable: true } });
      return gateError(`${tool} was not run: upstream unreachable (${failure.message}). Nothing happened; this is retryable — call it again with the same arguments.`, decision, { "idemgate/retryable": true });
    }
    if (failure.kind === "failed") {
      await this.complete(projectId, decision, { outcome: "failed", error: { message: failure.message, retryable: false } });
      const what = failure.malformed ? "the upstream replied with something that is not a valid tool result" : failure.message;
      return gateError(`${tool} failed: ${what}. Recorded as a failure, not a success; do not retry it unchanged.`, decision, { "idemgate/retryable": false });
    }
    // Sent but unanswered: it may have run. The lease stays until it expires, so a duplicate waits
    // instead of running it again.
    return gateError(`${tool} was sent but its outcome is unknown (${failure.message}). It may have taken effect: do not retry blindly; check whether it happened first.`, decision, { "idemgate/retryable": false, "idemgate/outcome": "unknown" });
  }

  private async complete(projectId: string, decision: Execute, outcome: Parameters<GateService["complete"]>[3]): Promise<void> {
    try {
      await this.gate.complete(projectId, decision.callId, decision.leaseToken, outcome, decision.runWindowed);
    } catch (error) {
      if (outcome.outcome === "succeeded" && error instanceof AppError && (error.code === "invalid_json" || error.code === "invalid_input")) {
        // The upstream ran, but its result is beyond what the gate stores (too deep or wide): record
        // that it ran, or the lease lapses and the next call runs it again.
        const note = { content: [{ type: "text", text: `The tool ran, but its result could not be recorded (${error.message}).` }] };
        return this.complete(projectId, decision, { outcome: "succeeded", result: note });
      }
      // lease_lost is already on the ledger and flagged to operators; the client still gets its answer.
      if (!(error instanceof AppError && error.code === "lease_lost")) throw error;
    }
  }

  /** The tool's `mcp.timeoutSeconds`, from the policy its begin was just decided under. */
  private upstreamTimeoutMs(projectId: string, tool: string): number {
    return ((this.gate.policySeen(projectId, tool) ?? DEFAULT_EFFECTIVE_POLICY).policy.mcp.timeoutSeconds) * 1000;
  }

  /** Heartbeats at half the lease while the upstream runs, so a slow tool is not taken over. */
  private keepLease(projectId: string, decision: Execute): () => void {
    const every = Math.max(1_000, Math.floor((decision.leaseExpiresAt - Date.now()) / 2));
    const timer = setInterval(() => {
      this.gate.heartbeat(projectId, decision.callId, decision.leaseToken).catch(() => clearInterval(timer));
    }, every);
    timer.unref();
    return () => clearInterval(timer);
  }

  /**
   * On first sight of a tool, a policy layer from its annotations — only where the tool has no
   * layer yet (expectedVersion 0), so an explicit policy always wins, even one written meanwhile.
   */
  private async seedPolicies(upstream: ResolvedUpstream, tools: { name: string; annotations?: ToolAnnotations }[]): Promise<void> {
    const projectId = upstream.row.projectId;
    for (const tool of tools) {
      const name = gateToolName(upstream.row.name, tool.name);
      const seenKey = `${projectId}\u0000${name}`;
      if (this.seen.has(seenKey)) continue;
      const overrides = seedFromAnnotations(tool.annotations);
      if (overrides) {
        try {
          await this.policies.update(projectId, name, overrides, { author: SEED_AUTHOR, reason: `seeded from the MCP tool annotations of ${upstream.row.name}/${tool.name}`, expectedVersion: 0 });
        } catch (error) {
          if (!(error instanceof AppError && error.code === "version_conflict")) throw error;
        }
      }
      this.seen.add(seenKey);
    }
  }

  private async assertReachable(upstream: ResolvedUpstream): Promise<void> {
    if (upstream.row.transport === "streamable_http") await this.checkOutbound(upstream.row.projectId, upstream.row.url!);
  }
}

function gatePreviewWait(tool: string, key: string, previewId: string) {
  return {
    message: `${tool} needs an operator to approve its preview (${previewId}) before it runs. It has not run. Ask an operator to approve it in Idemgate; continue once they have.`,
    refusal: `${tool} was not run: it needs an operator to approve its preview (${previewId}) first. Tell the user it is waiting for an operator in Idemgate; once approved, call it again the same way and it runs once.`,
    previewId,
    key,
  };
}
