import Link from "next/link";
import type { RunTimeline as Timeline } from "@/lib/dashboard/prepare-run-timeline";
import type { Tone } from "@/lib/dashboard/ledger-labels";

const ROW_PX = 26;
const LEGEND: { tone: Tone; label: string }[] = [
  { tone: "exec", label: "execute" },
  { tone: "ok", label: "succeeded" },
  { tone: "dedup", label: "replay / in progress" },
  { tone: "warn", label: "refused / verify / approval / released" },
  { tone: "danger", label: "failed / conflict / lease lost / blocked" },
  { tone: "neutral", label: "heartbeat / operator / resend" },
];

/**
 * One lane per (sub)agent; each call a bar from its first to its last event in that lane (a link to
 * the call), each event a coloured dot. Plain HTML and CSS positioned in % of the run's span, so it
 * fits any width; the table beside it carries the same facts for screen readers.
 */
export function RunTimeline({ timeline, projectId }: { timeline: Timeline; projectId: string }) {
  const base = `/projects/${encodeURIComponent(projectId)}/calls/`;
  return (
    <div className="stack">
      <ul className="legend" aria-label="Colours">
        {LEGEND.map((l) => (
          <li key={l.tone}>
            <span className={`swatch fill-${l.tone}`} aria-hidden="true" />
            {l.label}
          </li>
        ))}
      </ul>
      <div className="run-timeline" data-testid="run-timeline">
        <div className="rt-row">
          <div className="rt-spacer" />
          <div className="rt-axis" aria-hidden="true">
            {timeline.ticks.map((t) => (
              <span key={t.pct} style={{ left: `${t.pct}%` }}>
                {t.label}
              </span>
            ))}
          </div>
        </div>
        {timeline.lanes.map((lane) => (
          <div key={lane.agent} className="rt-row" data-testid="run-lane" data-agent={lane.agent}>
            <div className="rt-lane-label">{lane.agent}</div>
            <div className="rt-track" style={{ height: lane.rows * ROW_PX + 6 }} role="list" aria-label={`Calls of ${lane.agent}`}>
              {lane.segments.map((s) => {
                const style = { left: `min(${s.startPct}%, calc(100% - 8px))`, width: `${s.widthPct}%`, top: 3 + s.row * ROW_PX };
                const marks = s.marks.map((m) => (
                  <span key={m.id} className={`rt-mark fill-${m.tone}`} style={{ left: `${m.pct}%`, top: 3 + s.row * ROW_PX }} aria-hidden="true" title={m.label} />
                ));
                return (
                  <div key={s.id} role="listitem" data-testid="run-segment">
                    {s.callId ? (
                      <Link className={`rt-seg status-${s.status ?? "none"}`} href={base + encodeURIComponent(s.callId)} style={style} aria-label={s.summary} title={s.summary} />
                    ) : (
                      <span className="rt-seg" style={style} title={s.summary} aria-label={s.summary} role="img" />
                    )}
                    {marks}
                  </div>
                );
              })}
            </div>
          </div>
        ))}
      </div>
    </div>
  );
}
