"use client";

import { ReferenceLine, usePlotArea } from "recharts";

/** About one character's advance at the labels' 11 px, to keep a label inside the plot. */
const CHAR_PX = 6.4;
const GAP = 4;

interface LabelProps {
  viewBox?: { x?: number; y?: number };
  value?: string;
}

/**
 * A policy mark's label inside the plot's top edge, beside its line: to the left when there is
 * room (recent changes sit at the right edge, where a label centred above the line was cut off),
 * else to the right; cut with an ellipsis only when neither side holds it (a phone). A halo in the
 * page's background keeps it readable over the bars.
 */
function MarkLabel({ viewBox, value }: LabelProps) {
  const plot = usePlotArea();
  if (!value || viewBox?.x === undefined) return null;
  const x = viewBox.x;
  const left = plot ? x - GAP - plot.x : x;
  const right = plot ? plot.x + plot.width - x - GAP : Number.POSITIVE_INFINITY;
  const width = value.length * CHAR_PX;
  const toLeft = width <= left || (width > right && left >= right);
  const room = Math.floor((toLeft ? left : right) / CHAR_PX);
  const text = value.length <= room ? value : `${value.slice(0, Math.max(1, room - 1))}…`;
  return (
    <text
      x={toLeft ? x - GAP : x + GAP}
      y={(viewBox.y ?? 0) + 12}
      textAnchor={toLeft ? "end" : "start"}
      fill="var(--fg)"
      fontSize={11}
      stroke="var(--bg)"
      strokeWidth={3}
      paintOrder="stroke"
      data-testid="chart-mark-label"
    >
      {text}
    </text>
  );
}

/** The charts' policy marks (a revision's bucket): a dashed line, its label readable at any width. */
export function policyMarkLines(annotations: readonly { at: number; label: string }[]) {
  return annotations.map((a, i) => (
    <ReferenceLine key={`${a.at}-${i}`} x={a.at} stroke="var(--fg)" strokeDasharray="4 3" label={<MarkLabel value={a.label} />} />
  ));
}
