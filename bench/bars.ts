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
 * The bars of the hot-path issue, from this run's own cells (ratios measured side by side, never
 * against figures from another run): in-process SQLite against the durable and in-memory peers,
 * HTTP against the bare routes and raw stores beneath it, the second instance, and begin latency
 * at 1M stored records against 10k.
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

  /** a ÷ (sum of bs): a gate cell against the floors it stands on, stacked. */
  const stacked = (a: string, bs: string[], which: Figure) => {
    const x = figure(a, which);
    const ys = bs.map((b) => figure(b, which));
    if (x === null || ys.some((y) => y === null)) return null;
    return Number((x / ys.reduce((sum: number, y) => sum + y!, 0)).toFixed(2));
  };

  const ours = `inprocess.sqlite-${sqliteSynchronous}`;
  const sync = sqliteSynchronous.toUpperCase();
  const memoryPeer = "peer.powertools-redis";
  const durablePeer = "peer.powertools-redis-aof";
  const bars: Bar[] = [];
  for (const clients of [1, 8]) {
    bars.push(
      bar(
        `inprocess-fresh-c${clients}`,
        `in-process SQLite fresh pairs/s ≥ the durable peer (Redis AOF always) at ${clients} client${clients > 1 ? "s" : ""}`,
        `${ours} ÷ ${durablePeer}, fresh, ${clients} client(s), ops/s (SQLite ${sync})`,
        ratio(`${ours}/fresh/c${clients}`, `${durablePeer}/fresh/c${clients}`, "opsPerSecond"),
        1,
        null,
      ),
    );
  }
  for (const [clients, min] of [
    [1, 1],
    [32, 0.5],
  ] as const) {
    bars.push(
      bar(
        `inprocess-replay-c${clients}`,
        `in-process SQLite replays/s ≥ ${min === 1 ? "" : `${min}× `}the in-memory peer at ${clients} client${clients > 1 ? "s" : ""}`,
        `${ours} ÷ ${memoryPeer}, replay, ${clients} client(s), ops/s (SQLite ${sync})`,
        ratio(`${ours}/replay/c${clients}`, `${memoryPeer}/replay/c${clients}`, "opsPerSecond"),
        min,
        null,
      ),
    );
  }
  for (const [store, rawFloor, max] of [
    ["sqlite", "floor.sqlite-full", 1.25],
    ["postgres", "floor.postgres", 1.5],
  ] as const) {
    bars.push(
      bar(
        `http-${store}-pair`,
        `HTTP (${store}): a fresh pair p50 ≤ ${max}× two bare requests + one raw pair`,
        `p50 of http.${store} fresh pair ÷ (p50 of two GET /api/livez + p50 of a ${rawFloor} pair), 1 client`,
        stacked(`http.${store}/fresh/c1`, ["floor.next/fresh/c1", `${rawFloor}/fresh/c1`], "p50Ms"),
        null,
        max,
      ),
      bar(
        `http-${store}-replay`,
        store === "sqlite" ? `HTTP (sqlite): a replaying begin p50 ≤ 1.25× a bare Next route GET` : `HTTP (postgres): a replaying begin p50 ≤ 1.5× a bare Next route GET + one raw read`,
        store === "sqlite" ? `p50 of http.sqlite replay begin ÷ p50 of GET /api/livez, 1 client` : `p50 of http.postgres replay begin ÷ (p50 of GET /api/livez + p50 of a floor.postgres replay read), 1 client`,
        store === "sqlite" ? ratio("http.sqlite/replay/c1", "floor.next/replay/c1", "p50Ms") : stacked("http.postgres/replay/c1", ["floor.next/replay/c1", "floor.postgres/replay/c1"], "p50Ms"),
        null,
        max,
      ),
    );
  }
  bars.push(
    bar(
      "http-sqlite-replay-lean",
      "HTTP (sqlite): a replaying begin p50 within 2× a bare node:http JSON route",
      "p50 of http.sqlite replay begin ÷ p50 of floor.node-http GET, 1 client",
      ratio("http.sqlite/replay/c1", "floor.node-http/replay/c1", "p50Ms"),
      null,
      2,
    ),
    bar(
      "http-sqlite-replay-c32",
      "HTTP (sqlite): replays/s at 32 clients ≥ 0.8× the bare Next route's requests/s",
      "http.sqlite ÷ floor.next, replay, 32 clients, ops/s",
      ratio("http.sqlite/replay/c32", "floor.next/replay/c32", "opsPerSecond"),
      0.8,
      null,
    ),
  );
  for (const workload of ["fresh", "replay"]) {
    bars.push(
      bar(
        `scaleout-${workload}`,
        `HTTP on Postgres: two instances are not slower than one (${workload})`,
        `scaleout.postgres-2 ÷ http.postgres, ${workload}, 32 clients, ops/s`,
        ratio(`scaleout.postgres-2/${workload}/c32`, `http.postgres/${workload}/c32`, "opsPerSecond"),
        1,
        null,
      ),
    );
  }
  const growthIds = [...new Set(cells.filter((c) => c.group === "growth" && c.floorId).map((c) => [c.subjectId, c.floorId!] as const))];
  const seen = new Set<string>();
  for (const [large, small] of growthIds) {
    if (seen.has(large)) continue;
    seen.add(large);
    for (const workload of ["begin-fresh", "begin-replay", "begin-replay-recent"]) {
      bars.push(
        bar(
          `${large}-${workload}`,
          `growth: ${workload.replace("begin-", "").replace("-", " (")}${workload.endsWith("recent") ? ")" : ""} begin p50 with ${large.split("-").pop()} records ≤ 1.2× with ${small.split("-").pop()}`,
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
