import { sleep, withGateRetry } from "./retry";
import type { BeginRequest, CallDeps, CallOptions, CallResult, GateTransport, PreviewTransport } from "./types";

const FIRST_POLL_MS = 250;
const MAX_POLL_MS = 2_000;
const DEFAULT_PREVIEW_TIMEOUT_MS = 300_000;

export type PreviewExchange<T> = { ok: true; token: string | null } | { ok: false; result: CallResult<T> };

export function isPreviewTransport(transport: GateTransport): transport is GateTransport & PreviewTransport {
  return "createPreview" in transport && "readPreview" in transport;
}

/**
 * The agent's half of a preview: run the dry run, post it with exactly the call's identity and args,
 * and wait (polling) until the token is released — at once under `required`, after an operator's
 * approval under `approve`. A null token means the preview was already spent: begin again without.
 */
export async function exchangePreview<T>(
  deps: CallDeps,
  transport: PreviewTransport,
  request: BeginRequest,
  options: CallOptions<T>,
): Promise<PreviewExchange<T>> {
  let current = options.previewId !== undefined
    ? await withGateRetry(() => transport.readPreview(options.previewId!, options.signal), deps.gateRetry, options.signal)
    : await postPreview(deps, transport, request, options);
  const deadline = Date.now() + (options.previewTimeoutMs ?? DEFAULT_PREVIEW_TIMEOUT_MS);
  let pause = FIRST_POLL_MS;
  while (current.previewToken === undefined) {
    if (current.status === "denied") return { ok: false, result: { ok: false, status: "preview_denied", previewId: current.previewId, note: current.decisionNote } };
    if (current.status === "used") return { ok: true, token: null };
    const remaining = deadline - Date.now();
    if (remaining <= 0) return { ok: false, result: { ok: false, status: "preview_pending", previewId: current.previewId } };
    await sleep(Math.min(pause, remaining), options.signal);
    pause = Math.min(pause * 2, MAX_POLL_MS);
    const id = current.previewId;
    current = await withGateRetry(() => transport.readPreview(id, options.signal), deps.gateRetry, options.signal);
  }
  return { ok: true, token: current.previewToken };
}

/** Runs the dry run and posts it with exactly the call's identity and args. */
export async function postPreview<T>(deps: Pick<CallDeps, "gateRetry">, transport: PreviewTransport, request: BeginRequest, options: Pick<CallOptions<T>, "preview" | "signal">) {
  const preview = await options.preview!(request.args);
  const { tool, runId, stepId, scope, toolCallId, agentId, args } = request;
  const body = { tool, runId, stepId, scope, toolCallId, agentId, args, preview: { summary: preview.summary, affected: preview.affected } };
  return withGateRetry(() => transport.createPreview(body, options.signal), deps.gateRetry, options.signal);
}
