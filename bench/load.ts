export interface LoadRun {
  ops: number;
  seconds: number;
  /** Per-operation latencies in ms, in start order. */
  latencies: Float64Array;
  /** True when the time cap ended the run before the operation target. */
  capped: boolean;
  /** Operations that threw (an unexpected answer): counted, not fatal, so one bad cell cannot sink a 10-minute run. */
  errors: number;
  firstError: string | null;
}

export interface LoadSpec {
  ops: number;
  clients: number;
  /** Stop starting operations after this long (0: no cap). */
  maxMs: number;
  /** The sequence number of this run's first operation (see Workload.op). */
  firstSeq: number;
  tag: string;
  op(seq: number, tag: string): Promise<void>;
}

/**
 * `clients` closed-loop workers share one operation counter: each starts the next operation as
 * soon as its previous one answered, so concurrency is exactly `clients`. Every started operation
 * is awaited and counted, so a capped run still reports whole operations.
 */
export async function drive(spec: LoadSpec): Promise<LoadRun> {
  const latencies = new Float64Array(spec.ops);
  const started = performance.now();
  const deadline = spec.maxMs > 0 ? started + spec.maxMs : Number.POSITIVE_INFINITY;
  let next = 0;
  let capped = false;
  let errors = 0;
  let firstError: string | null = null;
  const worker = async () => {
    for (;;) {
      const i = next;
      if (i >= spec.ops) return;
      const t0 = performance.now();
      if (t0 > deadline) {
        capped = true;
        return;
      }
      next++;
      try {
        await spec.op(spec.firstSeq + i, spec.tag);
      } catch (error) {
        errors++;
        firstError ??= error instanceof Error ? error.message : String(error);
      }
      latencies[i] = performance.now() - t0;
    }
  };
  await Promise.all(Array.from({ length: spec.clients }, worker));
  const seconds = (performance.now() - started) / 1000;
  return { ops: next, seconds, latencies: latencies.subarray(0, next), capped, errors, firstError };
}
