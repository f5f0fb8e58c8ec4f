import type { LedgerEvent } from "../contract/calls";

/**
 * How a ledger event reads on the dashboard: one colour family (tone) per kind of outcome, a
 * sentence, and who caused it. The same mapping colours the call timeline, the run lanes and the
 * decision badges, so one colour means one thing everywhere.
 */
export type Tone = "exec" | "ok" | "dedup" | "warn" | "danger" | "neutral";

type EventLike = Pick<LedgerEvent, "type" | "decision" | "agentId" | "detail" | "argsMismatch" | "attempt">;

const BEGIN_TONES: Record<string, Tone> = {
  execute: "exec",
  replay: "dedup",
  in_progress: "dedup",
  refused: "warn",
  verify: "warn",
  approval_required: "warn",
  conflict: "danger",
  blocked: "danger",
};

const STATUS_TONES: Record<string, Tone> = { succeeded: "ok", failed: "danger", released: "warn", in_progress: "exec" };

/** A record's status or a begin's decision (the badges of lists). */
export function toneOfDecision(decision: string): Tone {
  return BEGIN_TONES[decision] ?? STATUS_TONES[decision] ?? (decision === "lease_lost" ? "danger" : "neutral");
}

export function toneOfEvent(event: Pick<EventLike, "type" | "decision">): Tone {
  switch (event.type) {
    case "begin":
      return BEGIN_TONES[event.decision] ?? "neutral";
    case "complete":
      return STATUS_TONES[event.decision] ?? "neutral";
    case "lease_lost":
      return "danger";
    case "check":
      return "warn";
    default:
      return "neutral";
  }
}

const detailOf = (event: Pick<EventLike, "detail">): Record<string, unknown> =>
  event.detail !== null && typeof event.detail === "object" && !Array.isArray(event.detail) ? (event.detail as Record<string, unknown>) : {};

export function describeEvent(event: EventLike): string {
  const detail = detailOf(event);
  switch (event.type) {
    case "begin": {
      const base =
        event.decision !== "blocked"
          ? `begin → ${event.decision.replace("_", " ")}`
          : detail.reason === "budget_exceeded"
            ? "begin → blocked (run budget exceeded)"
            : "begin → blocked (loop detected)";
      return event.argsMismatch ? `${base} (different args)` : base;
    }
    case "complete":
      if (detail.check === "found") return `complete: ${event.decision} (status check found it downstream; nothing ran)`;
      if (detail.check === "not_found") return `complete: ${event.decision} (status check found nothing; ran under the same key)`;
      return event.decision === "released" ? "complete: released (retryable failure)" : `complete: ${event.decision}`;
    case "check":
      return "status check could not tell: waiting for an operator";
    case "saga":
      return `run ${event.decision}`;
    case "heartbeat":
      return "heartbeat: lease extended";
    case "lease_lost":
      return event.decision === "heartbeat" ? "lease lost: heartbeat refused" : `lease lost: late ${event.decision.replace("complete_", "complete (")})`;
    case "operator":
      if (event.decision === "evicted") return "evicted by an operator";
      return `resolved by an operator: ${event.decision.replace("resolved_", "")}`;
    case "resend":
      return typeof detail.generation === "number" ? `resend approved: generation ${detail.generation}` : "resend approved";
    default:
      return `${event.type}: ${event.decision}`;
  }
}

/** Who caused it: the (sub)agent that asked, the operator who acted, or the approved request. */
export function actorOf(event: EventLike): string {
  const detail = detailOf(event);
  if (event.type === "operator") return typeof detail.by === "string" ? detail.by : "operator";
  if (event.type === "resend") return typeof detail.requestId === "string" ? `request ${detail.requestId}` : "approved request";
  return event.agentId ? `agent ${event.agentId}` : "root agent";
}

/** The reason, note or loop warning an event carries, if any. */
export function noteOf(event: EventLike): string | null {
  const detail = detailOf(event);
  if (typeof detail.reason === "string") return `reason: ${detail.reason}`;
  if (typeof detail.note === "string") return `note: ${detail.note}`;
  const loop = (detail.loopWarning ?? detail.loop) as { pattern?: unknown; repeats?: unknown } | undefined;
  if (loop && Array.isArray(loop.pattern)) return `loop: ${loop.pattern.join(" → ")} ×${String(loop.repeats)}`;
  return null;
}

/** "+850 ms", "+1.2 s", "+3 min 5 s", "+2 h 3 min", "+1 d 2 h". */
export function formatOffset(ms: number): string {
  const abs = Math.max(0, Math.round(ms));
  if (abs < 1_000) return `+${abs} ms`;
  if (abs < 60_000) return `+${(abs / 1_000).toFixed(abs < 10_000 ? 1 : 0)} s`;
  const s = Math.floor(abs / 1_000);
  if (s < 3_600) return `+${Math.floor(s / 60)} min${s % 60 ? ` ${s % 60} s` : ""}`;
  if (s < 86_400) return `+${Math.floor(s / 3_600)} h${Math.floor((s % 3_600) / 60) ? ` ${Math.floor((s % 3_600) / 60)} min` : ""}`;
  return `+${Math.floor(s / 86_400)} d${Math.floor((s % 86_400) / 3_600) ? ` ${Math.floor((s % 86_400) / 3_600)} h` : ""}`;
}
