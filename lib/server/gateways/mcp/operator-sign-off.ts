import type { PreviewService } from "../../multistep/preview-service";
import type { PreviewRow } from "../../../store/prisma/preview-repository";
import type { ResendService } from "../../resends/resend-service";
import type { McpCallIdentity, McpCaller } from "./call-identity";

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

export type PreviewSignOff = { token: string } | { pending: PreviewRow } | { denied: PreviewRow };

/** Operators' sign-offs on MCP calls: approved resends, and previews the gateway asks for on the client's behalf. */
export class OperatorSignOff {
  constructor(
    private readonly resends: () => ResendService,
    private readonly previews: () => PreviewService,
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
   * finds its preview (PreviewService.create, by key and args fingerprint) instead of asking anew.
   */
  async previewToken(caller: McpCaller, call: { tool: string; upstreamTool: string; upstream: string; identity: Omit<McpCallIdentity, "resendReason">; args: Record<string, unknown> }): Promise<PreviewSignOff> {
    const summary = `${call.upstreamTool} on MCP upstream ${call.upstream} with ${JSON.stringify(call.args).slice(0, 1_000)} (asked through the MCP gateway)`;
    const view = await this.previews().create(caller.projectId, { tool: call.tool, ...call.identity, args: call.args, summary, affected: call.identity.scope ? [call.identity.scope] : [] }, caller.actor);
    if (view.token) return { token: view.token };
    if (view.preview.status === "denied") return { denied: view.preview };
    return { pending: view.preview };
  }
}
