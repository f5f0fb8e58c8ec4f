/**
 * Everything this process holds once, whichever module copy asks: the one list of process-wide
 * values, and the only module that touches `globalThis` for them.
 *
 * Why globalThis and not a module variable: Next.js loads a module once per layer (the boot hook,
 * route handlers, pages), so a module variable would be one per layer (one set of connections per
 * layer, a background loop started twice, a Prometheus exporter registered twice). The first layer
 * to ask makes the value with its own module copies; the others get that one.
 *
 * Nothing here imports anything: each owner names the type of its slot (processSlot<T>), so this
 * module can never close an import cycle.
 */
const SLOTS = {
  /** lib/server/composition-root.ts: the services and their connections. */
  services: "__idemgateServices",
  /** lib/server/background-jobs.ts: whether the background loops are running. */
  backgroundJobsStarted: "__idemgateJobs",
  /** lib/server/background-jobs.ts: each background loop's pass and failure counts. */
  loopStats: "__idemgateLoopStats",
  /** lib/telemetry/setup.ts: the Prometheus exporter the scrape route reads. */
  prometheus: "__idemgatePrometheus",
  /** lib/http/client-address.ts: whether client addresses are stamped on requests. */
  clientAddressInstalled: "__idemgateClientAddress",
  /** lib/http/agent-api.ts: the lean agent path; scripts/serve.mjs reads it by this global name. */
  agentApi: "__idemgateAgentApi",
  /** lib/store/connection/pg-tls.ts: Postgres URLs learned to refuse TLS (sslmode=prefer). */
  pgPlaintextUrls: "__idemgatePgPlaintext",
} as const;

export type ProcessSlotName = keyof typeof SLOTS;

export interface ProcessSlot<T> {
  get(): T | undefined;
  set(value: T): void;
  /** The value, made by `create` if no layer has made it yet. */
  getOrCreate(create: () => T): T;
}

const global = globalThis as unknown as Record<string, unknown>;

/** One process-wide value; its owner (the module the slot's comment names) says its type. */
export function processSlot<T>(name: ProcessSlotName): ProcessSlot<T> {
  const key = SLOTS[name];
  return {
    get: () => global[key] as T | undefined,
    set: (value) => {
      global[key] = value;
    },
    getOrCreate: (create) => (global[key] ??= create()) as T,
  };
}
