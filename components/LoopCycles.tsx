import { formatInstant } from "@/lib/dashboard/format-time";
import { loopCycles } from "@/lib/dashboard/loop-cycles";

/** The loops the detector blocked, each as its cycle (`search_kb → fetch_page ×3`); nothing when there were none. */
export function LoopCycles({ events, subject }: { events: Parameters<typeof loopCycles>[0]; subject: "run" | "call" }) {
  const cycles = loopCycles(events);
  if (cycles.length === 0) return null;
  return (
    <section className="card" aria-labelledby="loops-title" data-testid="loop-cycles">
      <h2 id="loops-title" style={{ margin: 0, fontSize: "1.1em" }}>
        Loop detected: this {subject} was blocked
      </h2>
      <ul style={{ margin: "6px 0 0", paddingLeft: "1.2em" }}>
        {cycles.map((cycle) => (
          <li key={cycle.text} data-testid="loop-cycle">
            <code>{cycle.text}</code>{" "}
            <span className="muted">
              — {cycle.blocked} begin{cycle.blocked === 1 ? "" : "s"} blocked, {formatInstant(cycle.firstAt, "seconds")}
              {cycle.blocked > 1 ? ` to ${formatInstant(cycle.lastAt, "seconds")}` : ""}
            </span>
          </li>
        ))}
      </ul>
    </section>
  );
}
