import type { BeginDecision } from "../../../core/record";
import type { PreviewService } from "../../multistep/preview-service";
import type { PreviewRow } from "../../../store/prisma/preview-repository";
import type { ResendService } from "../../resends/resend-service";
import type { McpCallIdentity } from "./call-identity";
import type { McpCaller } from "./mcp-gateway";

/** How many times a 2026-07-28 client is asked to wait for an operator before the call ends as an isError result. */
export const MAX_OPERATOR_ROUNDS = 5;

/**
 * The answer while an operator has not decided, for a client that can wait (2026-07-28, URL-mode
 * elicitation): the server factory turns it into an `input_required` result whose URL elicitation
 * shows the user where the operator decides. The client's answer to it approves nothing: on the
 * retry the gate is asked again, and only an operator's decision lets the call run.
 */
export interface OperatorWait {
  awaitOperator: { message: string; path: string; round: number; decision: "approval_required" | "preview_required" };
}

export function isOperatorWait(value: object): value is OperatorWait {
  return "awaitOperator" in value;
}

type PreviewAsked = Extract<BeginDecision, { decision: "preview_required" }>;

export type PreviewSignOff = { token: string } | { pending: PreviewRow } | { denied: PreviewRow };

/** Operators' sign-offs on MCP calls: approved resends, and previews the gateway asks for on the client's behalf. */
export class OperatorSignOff {
  constructor(
    private readonly resends: () => ResendService,
    private readonly previews: () => PreviewService,
    private readonly clock: () => number = Date.now,
  ) {}

  /** The approved resend request's single-use token, or null while it waits (or was denied). */
  async resendToken(caller: McpCaller, requestId: string): Promise<string | null> {
    const { token } = await this.resends().readByAgent(caller.projectId, requestId, caller.apiKeyId, caller.actor);
    return token ?? null;
  }

  /**
   * A tool under `preview`: an MCP client has no dry run to offer, so the gateway previews the call
   * itself (the tool, its upstream and its arguments are the summary). Under `required` its token is
   * at hand at once; under `approve` an operator approves that preview first. The same call again
   * finds its preview (by key and args fingerprint) instead of asking anew.
   */
  async previewToken(caller: McpCaller, asked: PreviewAsked, call: { tool: string; upstreamTool: string; upstream: string; identity: Omit<McpCallIdentity, "resendReason">; args: Record<string, unknown> }): Promise<PreviewSignOff> {
    const previews = this.previews();
    const now = this.clock();
    const mine = (row: PreviewRow) => row.key === asked.key && row.argsFingerprint === asked.argsFingerprint && row.usedAt === null && row.expiresAt > now;
    for (const status of ["approved", "ready", "pending", "denied"] as const) {
      const found = (await previews.list(caller.projectId, status, 200)).find(mine);
      if (!found) continue;
      if (status === "pending") return { pending: found };
      if (status === "denied") return { denied: found };
      const { token } = await previews.read(caller.projectId, found.id);
      if (token) return { token };
    }
    const summary = `${call.upstreamTool} on MCP upstream ${call.upstream} with ${JSON.stringify(call.args).slice(0, 1_000)} (asked through the MCP gateway)`;
    const view = await previews.create(caller.projectId, { tool: call.tool, ...call.identity, args: call.args, summary, affected: call.identity.scope ? [call.identity.scope] : [] }, caller.actor);
    return view.token ? { token: view.token } : { pending: view.preview };
  }
}
