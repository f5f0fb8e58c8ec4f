/** What a blocked begin's event carries (GateService.block): the cycle it detected. */
interface EventLike {
  type: string;
  decision: string;
  at: string;
  tool: string;
  detail: unknown;
}

export interface LoopCycle {
  /** `search_kb → fetch_page ×3`: the cycle, oldest call first, and how many times in a row it came. */
  text: string;
  pattern: string[];
  repeats: number;
  /** Begins it blocked, and the first and last of them. */
  blocked: number;
  firstAt: string;
  lastAt: string;
}

/** The distinct loops the detector blocked in a run's (or a call's) ledger, in the order they first tripped. */
export function loopCycles(events: readonly EventLike[]): LoopCycle[] {
  const cycles = new Map<string, LoopCycle>();
  for (const event of events) {
    if (event.type !== "begin" || event.decision !== "blocked") continue;
    // A run's budget blocks too (reason budget_exceeded): that is no cycle.
    if ((event.detail as { reason?: unknown } | null)?.reason === "budget_exceeded") continue;
    const loop = (event.detail as { loop?: { pattern?: unknown; repeats?: unknown } } | null)?.loop;
    // Blocked events from before the pattern was stored still say a loop was blocked, on this tool.
    const pattern = Array.isArray(loop?.pattern) ? loop.pattern.map(String) : [event.tool];
    const repeats = typeof loop?.repeats === "number" ? loop.repeats : 0;
    const text = `${pattern.join(" → ")}${repeats > 0 ? ` ×${repeats}` : ""}`;
    const known = cycles.get(text);
    if (known) cycles.set(text, { ...known, blocked: known.blocked + 1, lastAt: event.at });
    else cycles.set(text, { text, pattern, repeats, blocked: 1, firstAt: event.at, lastAt: event.at });
  }
  return [...cycles.values()];
}
