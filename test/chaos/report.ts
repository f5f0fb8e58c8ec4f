import type { ScenarioStats } from "./harness";

export interface ScenarioRow {
  gated: ScenarioStats;
  baseline: ScenarioStats;
}

const COLUMNS = [
  "scenario",
  "user requests",
  "tool calls issued (gate)",
  "side effects (gate)",
  "duplicates prevented (gate + key)",
  "tool calls issued (no gate)",
  "side effects (no gate)",
  "duplicates (no gate)",
  "time gate / no gate",
] as const;

/** The chaos table: one row per scenario, the gated run beside the same agent without the gate. */
export function chaosTable(rows: ScenarioRow[], meta: { size: string; seed: number }): string {
  const body = rows.map(({ gated, baseline }) => [
    `${gated.id}: ${gated.title}`,
    String(gated.requests),
    String(gated.toolCalls),
    `${gated.effects}${gated.duplicates || gated.missing ? ` (${gated.duplicates} dup, ${gated.missing} missing)` : ""}`,
    `${gated.gatePrevented + gated.keyDedups} (${gated.gatePrevented} + ${gated.keyDedups})`,
    String(baseline.toolCalls),
    `${baseline.effects}${baseline.missing ? ` (${baseline.missing} missing)` : ""}`,
    String(baseline.duplicates),
    `${(gated.ms / 1000).toFixed(1)} s / ${(baseline.ms / 1000).toFixed(1)} s`,
  ]);
  const total = (pick: (row: ScenarioRow) => number) => String(rows.reduce((sum, row) => sum + pick(row), 0));
  body.push([
    "total",
    total((r) => r.gated.requests),
    total((r) => r.gated.toolCalls),
    total((r) => r.gated.effects),
    total((r) => r.gated.gatePrevented + r.gated.keyDedups),
    total((r) => r.baseline.toolCalls),
    total((r) => r.baseline.effects),
    total((r) => r.baseline.duplicates),
    "",
  ]);
  const lines = [
    `Idemgate chaos suite — size ${meta.size}, seed ${meta.seed}; gate: real \`next start\` over HTTP (SQLite); agent: AI SDK generateText + scripted mock model`,
    "",
    `| ${COLUMNS.join(" | ")} |`,
    `| ${COLUMNS.map((_, i) => (i === 0 ? "---" : "---:")).join(" | ")} |`,
    ...body.map((cells) => `| ${cells.join(" | ")} |`),
  ];
  return lines.join("\n");
}
