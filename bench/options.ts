import type { Templates } from "./setup/databases";

/** What `--only` selects; floors are added automatically for the cells that are compared with them. */
export const SECTIONS = ["floors", "inprocess", "peer", "http", "scaleout", "growth", "stats", "httptools", "mcp"] as const;
export type Section = (typeof SECTIONS)[number];

export interface BenchOptions {
  /** Operation target per cell repetition. */
  ops: number;
  /** Time cap per cell repetition in seconds (0: none): the slow cells stop here with fewer ops. */
  cellSeconds: number;
  /** Wall-clock budget of the whole run: if setup ran long, the cap shrinks to fit (0: never). */
  budgetSeconds: number;
  reps: number;
  /** Untimed operations per workload before the first repetition. */
  warmupOps: number;
  sections: Set<Section>;
  /** Add the floors the selected cells are compared with (default true). */
  withFloors: boolean;
  /** Records stored before the growth cells: the baseline and the large store. */
  growthRecords: { small: number; large: number };
  growthPostgres: boolean;
  /** Completed keys each replay workload cycles through (≥ 4 × the most clients). */
  replayPool: number;
  /** Queries per stats cell repetition (each reads a seeded ledger of growthRecords.large events). */
  statsOps: number;
  /** The gate's SQLite setting for the HTTP server and the default in-process cell. */
  sqliteSynchronous: "full" | "normal";
  smoke: boolean;
  /** Where the JSON goes; default bench/results/<date>.json. */
  outFile?: string;
  /** Migrated databases to copy (the smoke test passes vitest's). */
  templates?: Templates;
  /** No progress lines on stderr. */
  quiet: boolean;
  /**
   * Another checkout of Idemgate (a worktree of an older commit, with node_modules and generated
   * clients): its in-process cells run in this run beside ours, interleaved, for a before/after.
   */
  /** `--baseline`: another checkout's directory, or a git ref to check out (setup/baseline-checkout.ts). */
  baseline?: string;
}

export function defaultOptions(sqliteSynchronous: "full" | "normal"): BenchOptions {
  return {
    ops: 20_000,
    cellSeconds: 2,
    budgetSeconds: 570,
    reps: 3,
    warmupOps: 300,
    sections: new Set(SECTIONS),
    withFloors: true,
    growthRecords: { small: 10_000, large: 1_000_000 },
    growthPostgres: true,
    statsOps: 30,
    replayPool: 256,
    sqliteSynchronous,
    smoke: false,
    quiet: false,
  };
}

/** Every cell, a handful of operations: proves the harness works, measures nothing. */
export function smokeOptions(base: BenchOptions): BenchOptions {
  return {
    ...base,
    ops: 12,
    cellSeconds: 0,
    reps: 2,
    warmupOps: 4,
    growthRecords: { small: 100, large: 1_000 },
    statsOps: 3,
    replayPool: 128,
    smoke: true,
  };
}

const USAGE = `npm run bench -- [options]
  --ops N             operations per cell repetition (default 20000)
  --cell-seconds S    cap each cell repetition at S seconds, 0 = no cap (default 2)
  --budget S          shrink the cap if needed so the whole run fits S seconds, 0 = never (default 570)
  --reps N            repetitions, interleaved; medians are reported (default 3)
  --warmup N          untimed operations per workload before the first repetition (default 300)
  --only LIST         comma-separated: ${SECTIONS.join(",")}
  --no-floors         with --only, do not add the floors the selected cells compare with
  --growth N          records in the large growth store (default 1000000; baseline 10000)
  --no-growth-pg      growth and stats on SQLite only
  --stats-ops N       queries per stats cell repetition (default 30)
  --sqlite-sync full|normal   the gate's SQLite setting (default: IDEMGATE_SQLITE_SYNCHRONOUS or the gate's default)
  --smoke             every cell with tiny counts (the harness check npm test runs)
  --out FILE          write the JSON here (default bench/results/<YYYY-MM-DD>.json)
  --baseline DIR|REF  also run the in-process, HTTP and MCP gateway cells of the checkout in DIR, or of git ref REF
                      (checked out, linked and built in the temp directory), each beside ours,
                      interleaved: a before/after from one run, with each cell's run-to-run spread`;

export function parseArgs(argv: string[], defaults: BenchOptions): BenchOptions {
  let options = { ...defaults };
  const positive = (flag: string, value: string | undefined, allowZero = false) => {
    const n = Number(value);
    if (!Number.isFinite(n) || n < 0 || (!allowZero && n === 0)) throw new Error(`${flag} needs a ${allowZero ? "non-negative" : "positive"} number\n\n${USAGE}`);
    return n;
  };
  let smoke = false;
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i]!;
    const value = () => argv[++i];
    switch (flag) {
      case "--ops":
        options.ops = Math.round(positive(flag, value()));
        break;
      case "--cell-seconds":
        options.cellSeconds = positive(flag, value(), true);
        break;
      case "--budget":
        options.budgetSeconds = positive(flag, value(), true);
        break;
      case "--reps":
        options.reps = Math.round(positive(flag, value()));
        break;
      case "--warmup":
        options.warmupOps = Math.round(positive(flag, value(), true));
        break;
      case "--only": {
        const names = (value() ?? "").split(",").map((s) => s.trim()).filter(Boolean);
        const unknown = names.filter((name) => !(SECTIONS as readonly string[]).includes(name));
        if (names.length === 0 || unknown.length > 0) throw new Error(`--only: unknown ${unknown.join(", ") || "(empty)"}\n\n${USAGE}`);
        options.sections = new Set(names as Section[]);
        break;
      }
      case "--no-floors":
        options.withFloors = false;
        break;
      case "--growth":
        options.growthRecords = { ...options.growthRecords, large: Math.round(positive(flag, value())) };
        break;
      case "--no-growth-pg":
        options.growthPostgres = false;
        break;
      case "--stats-ops":
        options.statsOps = Math.round(positive(flag, value()));
        break;
      case "--sqlite-sync": {
        const sync = value();
        if (sync !== "full" && sync !== "normal") throw new Error(`--sqlite-sync is full or normal\n\n${USAGE}`);
        options.sqliteSynchronous = sync;
        break;
      }
      case "--smoke":
        smoke = true;
        break;
      case "--out":
        options.outFile = value();
        break;
      case "--baseline": {
        const spec = value();
        if (!spec) throw new Error(`--baseline needs a directory or a git ref\n\n${USAGE}`);
        options.baseline = spec;
        break;
      }
      case "--help":
      case "-h":
        console.log(USAGE);
        process.exit(0);
        break;
      default:
        throw new Error(`unknown option ${flag}\n\n${USAGE}`);
    }
  }
  if (smoke) options = { ...smokeOptions(options), sections: options.sections, outFile: options.outFile };
  return options;
}
