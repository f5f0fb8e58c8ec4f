import type { Group } from "./cells/types";
import type { BenchResult, CellResult } from "./run";

const SECTION_TITLES: [Group, string][] = [
  ["floor", "Floors"],
  ["inprocess", "Idemgate in-process (SDK in-process mode)"],
  ["before", "Before and after (--baseline): the baseline checkout's in-process, HTTP and MCP gateway cells, each run beside ours"],
  ["peer", "The peer"],
  ["http", "Idemgate over HTTP (next start, production build)"],
  ["scaleout", "Scale-out (Postgres, instances behind round-robin clients)"],
  ["growth", "Growth: begin latency by records stored (in-process, 1 client)"],
  ["stats", "Dashboard statistics over the seeded ledger (StatsService, 1 client)"],
  ["httptools", "HTTP tools (issue #19): the Idempotency-Key middleware over the bare handler, /gw over the direct upstream (fresh keys, 1 client)"],
  ["mcp", "MCP gateway (issue #18): tools/call through /mcp/{upstream} over the same call straight to the upstream (SDK client, 1 client)"],
];

const count = (n: number) => Math.round(n).toLocaleString("en");
const rate = (n: number) => (n >= 100 ? count(n) : n.toFixed(1));
const ms = (n: number) => (n < 1 ? n.toFixed(3) : n < 10 ? n.toFixed(2) : n.toFixed(1));
const times = (n: number | undefined) => (n === undefined ? "" : `${n.toFixed(2)}×`);

/** A Markdown table padded to line up in a terminal too (and pasted as is into bench/README.md). */
export function markdownTable(header: string[], rows: string[][], rightAligned: boolean[]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i]!.length)));
  const line = (cells: string[]) => `| ${cells.map((cell, i) => (rightAligned[i] ? cell.padStart(widths[i]!) : cell.padEnd(widths[i]!))).join(" | ")} |`;
  const rule = `|${widths.map((w, i) => (rightAligned[i] ? `${"-".repeat(w + 1)}:` : `${"-".repeat(w + 2)}`)).join("|")}|`;
  return [line(header), rule, ...rows.map(line)].join("\n");
}

function cellRow(cell: CellResult): string[] {
  const workload = `${cell.workload} (${cell.unit})`;
  if (!cell.median) return [cell.label, workload, String(cell.clients), "—", `skipped: ${cell.skipReason ?? "not run"}`, "", "", "", ""];
  const m = cell.median;
  const capped = cell.reps.some((rep) => rep.capped) ? "*" : "";
  return [cell.label, workload, String(cell.clients), `${count(m.ops)}${capped}`, rate(m.opsPerSecond), ms(m.p50Ms), ms(m.p99Ms), times(cell.ratio?.cost), times(cell.ratio?.p50)];
}

const HEADER = ["cell", "workload", "clients", "ops", "ops/s", "p50 ms", "p99 ms", "cost × floor", "p50 × floor"];
const RIGHT = [false, false, true, true, true, true, true, true, true];

/** Our in-process figures beside the peer's, per workload and client count. */
function peerComparison(result: BenchResult): string | null {
  const peer = result.cells.filter((c) => c.group === "peer");
  const ours = [...new Set(result.cells.filter((c) => c.group === "inprocess").map((c) => c.subjectId))];
  if (peer.length === 0 || ours.length === 0) return null;
  const byId = new Map(result.cells.map((c) => [c.id, c]));
  const labels = ours.map((id) => byId.get(result.cells.find((c) => c.subjectId === id)!.id)!.label.replace("Idemgate in-process · ", ""));
  const rows = peer.map((p) => {
    const theirs = p.median?.opsPerSecond;
    const cells = ours.map((id) => {
      const mine = byId.get(`${id}/${p.workload}/c${p.clients}`)?.median?.opsPerSecond;
      if (mine === undefined) return "—";
      return theirs ? `${rate(mine)} (${(mine / theirs).toFixed(2)}×)` : rate(mine);
    });
    return [p.label.replace("Powertools idempotency + ", ""), p.workload, String(p.clients), theirs === undefined ? "skipped" : rate(theirs), ...cells];
  });
  return markdownTable(["peer", "workload", "clients", "peer ops/s", ...labels.map((l) => `${l} ops/s (÷ peer)`)], rows, [false, false, true, true, ...labels.map(() => true)]);
}

/**
 * Run-to-run spread of a cell: the range of its repetitions' ops/s over their median (0.12 = the
 * slowest and the fastest repetition were 12% of the median apart).
 */
export function spread(cell: CellResult): number | undefined {
  const rates = cell.reps.map((rep) => rep.opsPerSecond);
  if (rates.length < 2 || !cell.median?.opsPerSecond) return undefined;
  return (Math.max(...rates) - Math.min(...rates)) / cell.median.opsPerSecond;
}

/**
 * Ours against before for one cell: "slower" only when ours lost more ops/s than the larger of the
 * two cells' run-to-run spreads, so noise on a loaded machine is not read as a regression.
 */
export function verdict(before: CellResult, ours: CellResult): string {
  const x = before.median?.opsPerSecond;
  const y = ours.median?.opsPerSecond;
  const noise = Math.max(spread(before) ?? 0, spread(ours) ?? 0);
  if (!x || !y) return "—";
  if (y < x && (x - y) / x > noise) return "slower";
  if (y > x && (y - x) / x > noise) return "faster";
  return "within spread";
}

const percent = (n: number | undefined) => (n === undefined ? "—" : `${Math.round(n * 100)}%`);

/**
 * `--baseline`: each before cell beside ours, as ratios (ours ÷ before): above 1 for ops/s and
 * below 1 for p50 means we got faster. Each side's run-to-run spread is beside it, and the verdict
 * reads the change against the larger of the two.
 */
function beforeAfter(result: BenchResult): string {
  const before = result.cells.filter((c) => c.group === "before");
  const byId = new Map(result.cells.map((c) => [c.id, c]));
  const rows = before.map((b) => {
    const ours = byId.get(`${b.floorId}/${b.workload}/c${b.clients}`);
    const x = b.median;
    const y = ours?.median;
    const workload = `${b.workload} (${b.unit})`;
    if (!x || !y) return [ours?.label ?? String(b.floorId), workload, String(b.clients), "—", "—", "—", "—", "—", "—", "—", "—", b.skipReason ?? ours?.skipReason ?? "not run"];
    return [ours!.label, workload, String(b.clients), rate(x.opsPerSecond), percent(spread(b)), rate(y.opsPerSecond), percent(spread(ours!)), times(y.opsPerSecond / x.opsPerSecond), ms(x.p50Ms), ms(y.p50Ms), times(y.p50Ms / x.p50Ms), verdict(b, ours!)];
  });
  return markdownTable(
    ["cell", "workload", "clients", "before ops/s", "spread", "ops/s", "spread", "ops/s ÷ before", "before p50 ms", "p50 ms", "p50 ÷ before", "verdict"],
    rows,
    [false, false, true, true, true, true, true, true, true, true, true, false],
  );
}

/** Each gated HTTP-tools cell over its floor, in milliseconds: what the middleware or the gateway adds. */
function addedLatency(cells: CellResult[]): string[] {
  const lines: string[] = [];
  for (const cell of cells) {
    const floor = cells.find((c) => c.subjectId === cell.floorId && c.workload === cell.workload && c.clients === cell.clients);
    if (!cell.median || !floor?.median) continue;
    const plus = (n: number) => `${n >= 0 ? "+" : ""}${ms(n)}`;
    lines.push(`- ${cell.label}, ${cell.workload}: adds p50 ${plus(cell.median.p50Ms - floor.median.p50Ms)} ms, p99 ${plus(cell.median.p99Ms - floor.median.p99Ms)} ms over ${floor.label}`);
  }
  return lines;
}

export function renderReport(result: BenchResult): string {
  const m = result.machine;
  const o = result.options;
  const out: string[] = [];
  out.push(
    `Idemgate benchmark · ${result.startedAt.slice(0, 10)}${result.smoke ? " · SMOKE (tiny counts: checks the harness, measures nothing)" : ""}`,
    `machine: ${m.cpus.count} × ${m.cpus.model} · ${m.memoryGb} GB · ${m.os} · Node ${m.node} · PostgreSQL ${m.postgres ?? "absent"} · Redis ${m.redis ?? "absent/not run"} · SQLite ${m.sqlite.version}, gate synchronous=${m.sqlite.synchronous.toUpperCase()} · load average ${m.loadAverage.start} → ${m.loadAverage.end}`,
    `method: each cell is up to ${count(o.ops)} operations per repetition${o.cellSeconds > 0 ? `, capped at ${o.cellSeconds} s (ops marked * hit the cap: the column shows the median count done)` : ""}; stats cells ${count(o.statsOps)} queries; ${o.reps} repetitions interleaved, medians reported; run took ${result.durationSeconds} s.`,
    `cost × floor = floor ops/s ÷ ops/s, p50 × floor = p50 ÷ floor p50 (same workload and clients). Fresh = claim + complete (one pair), replay = a begin on a completed key.`,
    "",
  );
  const failing = result.cells.filter((c) => c.errors > 0);
  if (failing.length > 0) {
    out.push("## ERRORS: these cells got answers their workload does not allow (their figures are suspect)", "");
    for (const cell of failing) out.push(`- ${cell.id}: ${cell.errors} errors, first: ${cell.firstError}`);
    out.push("");
  }
  for (const [group, title] of SECTION_TITLES) {
    const cells = result.cells.filter((c) => c.group === group);
    if (cells.length === 0) continue;
    if (group === "before") {
      // Not against a floor: each before cell is read beside ours.
      out.push(`## ${title}`, "", `Ours beside the baseline (${result.options.baseline}):`, "", beforeAfter(result)!, "");
      continue;
    }
    out.push(`## ${title}`, "", markdownTable(HEADER, cells.map(cellRow), RIGHT), "");
    if (group === "httptools" || group === "mcp") out.push(...addedLatency(cells), "");
    if (group === "peer") {
      const comparison = peerComparison(result);
      if (comparison) out.push("In-process beside the peer (ops/s; in brackets ours ÷ peer):", "", comparison, "");
    }
  }
  if (result.bars.length > 0) {
    out.push("## The bars (the hot-path issue)", "");
    out.push(
      markdownTable(
        ["", "bar", "value", "target", "measured as"],
        result.bars.map((b) => [b.pass === null ? "n/a" : b.pass ? "PASS" : "MISS", b.text, b.value === null ? "—" : `${b.value.toFixed(2)}`, b.target, b.measure]),
        [false, false, true, false, false],
      ),
      "",
    );
  }
  return out.join("\n");
}
