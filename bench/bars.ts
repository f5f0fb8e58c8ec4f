import type { CellResult } from "./run";

export interface Bar {
  id: string;
  /** The bar as the issue states it. */
  text: string;
  /** How the value is computed. */
  measure: string;
  value: number | null;
  /** "≥ 1" style. */
  target: string;
  /** null: a cell it needs was skipped or not selected. */
  pass: boolean | null;
}

type Figure = "opsPerSecond" | "p50Ms";

/**
 * The bars of issue #8, from this run's own cells (ratios measured side by side, never against
 * figures from another run): in-process SQLite against the peer, HTTP against the bare route on
 * the same server, the second instance, and begin latency at 1M stored records against 10k.
 */
export function evaluateBars(cells: CellResult[], sqliteSynchronous: "full" | "normal"): Bar[] {
  const byId = new Map(cells.map((cell) => [cell.id, cell]));
  const figure = (id: string, which: Figure) => byId.get(id)?.median?.[which] ?? null;
  const ratio = (a: string, b: string, which: Figure) => {
    const x = figure(a, which);
    const y = figure(b, which);
    return x === null || y === null ? null : Number((x / y).toFixed(2));
  };
  const bar = (id: string, text: string, measure: string, value: number | null, min: number | null, max: number | null): Bar => ({
    id,
    text,
    measure,
    value,
    target: min !== null ? `≥ ${min}` : `≤ ${max}`,
    pass: value === null ? null : min !== null ? value >= min : value <= max!,
  });

  const ours = `inprocess.sqlite-${sqliteSynchronous}`;
  const sync = sqliteSynchronous.toUpperCase();
  const peer = "peer.powertools-redis";
  const bars: Bar[] = [];
  for (const clients of [1, 8]) {
    bars.push(
      bar(
        `inprocess-fresh-c${clients}`,
        `in-process SQLite fresh pairs/s ≥ the peer at ${clients} client${clients > 1 ? "s" : ""}`,
        `${ours} ÷ ${peer}, fresh, ${clients} client(s), ops/s (SQLite ${sync})`,
        ratio(`${ours}/fresh/c${clients}`, `${peer}/fresh/c${clients}`, "opsPerSecond"),
        1,
        null,
      ),
    );
  }
  for (const clients of [1, 32]) {
    bars.push(
      bar(
        `inprocess-replay-c${clients}`,
        `in-process SQLite replays ≥ 2× the peer at ${clients} client${clients > 1 ? "s" : ""}`,
        `${ours} ÷ ${peer}, replay, ${clients} client(s), ops/s (SQLite ${sync})`,
        ratio(`${ours}/replay/c${clients}`, `${peer}/replay/c${clients}`, "opsPerSecond"),
        2,
        null,
      ),
    );
  }
  for (const store of ["sqlite", "postgres"]) {
    bars.push(
      bar(
        `http-${store}-pair`,
        `HTTP (${store}): a begin + a complete cost ≤ 1.25× two bare route requests`,
        `p50 of http.${store} fresh pair ÷ p50 of two GET /api/livez, 1 client`,
        ratio(`http.${store}/fresh/c1`, "floor.next/fresh/c1", "p50Ms"),
        null,
        1.25,
      ),
      bar(
        `http-${store}-replay`,
        `HTTP (${store}): a replaying begin costs ≤ 1.25× a bare route request`,
        `p50 of http.${store} replay begin ÷ p50 of GET /api/livez, 1 client`,
        ratio(`http.${store}/replay/c1`, "floor.next/replay/c1", "p50Ms"),
        null,
        1.25,
      ),
    );
  }
  for (const workload of ["fresh", "replay"]) {
    bars.push(
      bar(
        `scaleout-${workload}`,
        `HTTP on Postgres: ${workload} throughput grows from 1 to 2 instances`,
        `scaleout.postgres-2 ÷ http.postgres, ${workload}, 32 clients, ops/s`,
        ratio(`scaleout.postgres-2/${workload}/c32`, `http.postgres/${workload}/c32`, "opsPerSecond"),
        1.05,
        null,
      ),
    );
  }
  const growthIds = [...new Set(cells.filter((c) => c.group === "growth" && c.floorId).map((c) => [c.subjectId, c.floorId!] as const))];
  const seen = new Set<string>();
  for (const [large, small] of growthIds) {
    if (seen.has(large)) continue;
    seen.add(large);
    for (const workload of ["begin-fresh", "begin-replay"]) {
      bars.push(
        bar(
          `${large}-${workload}`,
          `growth: ${workload.replace("begin-", "")} begin p50 with ${large.split("-").pop()} records ≤ 1.2× with ${small.split("-").pop()}`,
          `p50 ${large} ÷ p50 ${small}, ${workload}, 1 client`,
          ratio(`${large}/${workload}/c1`, `${small}/${workload}/c1`, "p50Ms"),
          null,
          1.2,
        ),
      );
    }
  }
  return bars;
}
