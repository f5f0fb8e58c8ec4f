import { type Gate, toBeginRequest } from "../gate";
import { isPreviewTransport, postPreview } from "../preview";
import { DEFAULT_GATE_RETRY, withGateRetry } from "../retry";
import type { CallSpec, PreviewOf, PreviewTransport, PreviewWire } from "../types";

/** Where a gated tool's argument-bound approval (a preview under policy `preview: approve`) stands. */
export type ApprovalState = "pending" | "approved" | "denied" | "used";

/**
 * The Idemgate side of a framework's human-in-the-loop: the dry run of a call is posted to the
 * operators' inbox once per key — itself a gated call (`<tool>:approval`) whose stored result is the
 * preview's id — so a paused run that resumes, replays or restarts in another process finds the same
 * preview, and the approval an operator gives it is the single-use, argument-bound token the call
 * then runs with. Nothing about the approval lives only in the framework's serialized state.
 */
export class ApprovalPreviews {
  private readonly known = new Map<string, string>();

  constructor(private readonly gate: Gate) {}

  /** The preview standing for this call (posted now if this key has none yet). */
  async previewFor(spec: CallSpec, dryRun: () => Promise<PreviewOf> | PreviewOf): Promise<string> {
    const request = toBeginRequest(spec);
    const memo = `${request.runId}\u0000${request.tool}\u0000${request.toolCallId ?? ""}`;
    const cached = this.known.get(memo);
    if (cached !== undefined) return cached;
    const transport = this.previews();
    const result = await this.gate.call(
      { ...spec, runId: request.runId, tool: `${spec.tool}:approval` },
      async () => (await postPreview({ gateRetry: DEFAULT_GATE_RETRY }, transport, request, { preview: dryRun })).previewId,
      { toolRetry: false },
    );
    if (!result.ok || typeof result.value !== "string") {
      throw new Error(`idemgate: could not post the approval preview of ${spec.tool} (${result.status})`);
    }
    this.known.set(memo, result.value);
    return result.value;
  }

  /** Where the operators' decision on a preview stands. */
  async state(previewId: string, signal?: AbortSignal): Promise<{ state: ApprovalState; note: string | null }> {
    const preview: PreviewWire = await withGateRetry(() => this.previews().readPreview(previewId, signal), DEFAULT_GATE_RETRY, signal);
    const state: ApprovalState = preview.status === "ready" || preview.status === "approved" ? "approved" : preview.status;
    return { state, note: preview.decisionNote };
  }

  private previews(): PreviewTransport {
    const transport = this.gate.transport;
    if (!isPreviewTransport(transport)) throw new Error("idemgate: approvals need a transport with the preview endpoints (the HTTP transport)");
    return transport;
  }
}
