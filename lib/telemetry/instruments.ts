import { type Counter, type Histogram, metrics } from "@opentelemetry/api";

/**
 * The gate's metrics. Created lazily because the meter provider is installed by
 * instrumentation.ts after modules load; until then the API hands out no-op instruments.
 */
interface Instruments {
  decisions: Counter;
  beginDuration: Histogram;
  stormsOpened: Counter;
  /** Sagas: undos finished, by tool and outcome (succeeded, failed, released, resolved). */
  compensations: Counter;
  sagaAborts: Counter;
  /** Status checks reported after verify, by tool and outcome (found, not_found, unknown). */
  statusChecks: Counter;
}

let cached: Instruments | undefined;
let providerAtCreation: unknown;

export function instruments(): Instruments {
  const provider = metrics.getMeterProvider();
  if (!cached || providerAtCreation !== provider) {
    const meter = metrics.getMeter("idemgate");
    providerAtCreation = provider;
    cached = {
      decisions: meter.createCounter("idemgate.decisions", {
        description: "Gate decisions by tool and decision",
      }),
      beginDuration: meter.createHistogram("idemgate.begin.duration", {
        description: "Time to decide a begin",
        // Seconds, the conventions' base unit (Prometheus: idemgate_begin_duration_seconds).
        unit: "s",
        advice: { explicitBucketBoundaries: [0.00025, 0.0005, 0.001, 0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1, 5, 10] },
      }),
      stormsOpened: meter.createCounter("idemgate.storms.opened", {
        description: "Retry storms opened",
      }),
      compensations: meter.createCounter("idemgate.compensations", {
        description: "Compensations (saga undos) finished, by tool and outcome",
      }),
      sagaAborts: meter.createCounter("idemgate.saga.aborts", {
        description: "Runs aborted, by who aborted them (agent, policy, operator)",
      }),
      statusChecks: meter.createCounter("idemgate.status_checks", {
        description: "Status checks after verify, by tool and outcome (found, not_found, unknown)",
      }),
    };
  }
  return cached;
}

/**
 * The live-leases gauge, read from the database at collection time (a scrape or an OTLP export),
 * so every instance reports the same shared truth rather than its own share of it.
 */
export function observeLiveLeases(read: () => Promise<{ projectId: string; leases: number }[]>): void {
  const gauge = metrics.getMeter("idemgate").createObservableGauge("idemgate.leases.live", {
    description: "Attempts holding a live lease, per project",
  });
  gauge.addCallback(async (result) => {
    try {
      for (const { projectId, leases } of await read()) result.observe(leases, { project_id: projectId });
    } catch {
      // A scrape during a store outage reports nothing rather than failing the whole scrape.
    }
  });
}
