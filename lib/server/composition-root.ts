import { type Auth, createAuth } from "../auth/auth";
import { resolveAuthSecret } from "../auth/auth-secret";
import { hashLikeSignUp, userCreator } from "../auth/create-user";
import { toWireStorm } from "../contract/storms";
import { type Env, env } from "../env";
import { openStore } from "../store/hot/open-gate-store";
import { type Db, openDb } from "../store/prisma/client";
import { PrismaOperatorStore } from "../store/prisma/operator-store";
import { PolicyRepository } from "../store/prisma/policy-repository";
import { PreviewRepository } from "../store/prisma/preview-repository";
import { OperatorQueueRepository } from "../store/prisma/operator-queue-repository";
import { RunAbortRepository } from "../store/prisma/run-abort-repository";
import { RunBudgetRepository } from "../store/prisma/run-budget-repository";
import { KnownRunsRepository } from "../store/prisma/known-runs-repository";
import { KnownRuns } from "./multistep/known-runs";
import { RunBudgetService } from "./multistep/run-budget-service";
import { UpstreamRepository } from "../store/prisma/upstream-repository";
import type { GateStore } from "../store/ports/gate-store";
import type { InsightStore } from "../store/ports/insight-store";
import type { OperatorStore } from "../store/ports/operator-store";
import { openInsightStore } from "../store/sql/open-insight-store";
import { TracedGateService } from "../telemetry/traced-gate-service";
import { recordStormTransition } from "../telemetry/storm-telemetry";
import { ApiKeyAuthenticator } from "./operators/api-keys";
import { LeaseTokens } from "./gate/lease-tokens";
import type { SharedKey } from "./shared-keys";
import { pgTimeoutsFrom } from "./pg-timeouts";
import { OperatorQueue } from "./operators/operator-queue";
import { SagaService } from "./multistep/saga-service";
import { buildHttpGateway } from "./gateways/http/gateway-context";
import type { HttpGateway } from "./gateways/http/http-gateway";
import { type Mcp, buildMcp } from "./gateways/mcp/mcp-context";
import { PreviewService } from "./multistep/preview-service";
import { type Outbound, createOutbound } from "./outbound/outbound-context";
import { SecretBox, resolveSecretsKey } from "./gateways/upstreams/secret-box";
import { UpstreamService } from "./gateways/upstreams/upstream-service";
import { StdioCommandCatalog, parseStdioCommands } from "./gateways/upstreams/stdio-commands";
import { CallExplorer } from "./insights/call-explorer";
import { Collector } from "./collector";
import type { GateService } from "./gate/gate-service";
import { OperatorApiKeys } from "./operators/operator-api-keys";
import { type CreateUser, OperatorMembers } from "./operators/operator-members";
import { OperatorRecords } from "./operators/operator-records";
import { PolicyService } from "./policies/policy-service";
import { StorePolicySource } from "./policies/policy-source";
import { ResendBypassGate } from "./resends/resend-bypass";
import { ResendService } from "./resends/resend-service";
import { StatsService } from "./insights/stats-service";
import { type StormNotice, StormMonitor } from "./insights/storm-monitor";
import { AlertDispatcher } from "./alerts/alert-dispatcher";
import { AlertService } from "./alerts/alert-service";
import { PrismaAlertRepository } from "../store/prisma/alert-repository";
import { stripUserinfo } from "../core/url-credentials";
import { processSlot } from "../process-wide";
import { timedStore } from "../telemetry/store-timing";

/** The agent side: the hot-path store (its own connection or pool) and what decides calls. */
export interface GateServices {
  store: GateStore;
  service: GateService;
  auth: ApiKeyAuthenticator;
  policies: PolicyService;
  policySource: StorePolicySource;
}

/** The operator side: its store and better-auth, both on the Prisma Client (Services.db), and services. */
export interface Operators {
  store: OperatorStore;
  auth: Auth;
  createUser: CreateUser;
  resends: ResendService;
  bypass: ResendBypassGate;
  records: OperatorRecords;
  apiKeys: OperatorApiKeys;
  members: OperatorMembers;
  explorer: CallExplorer;
}

/** Retention, storms and statistics: one insight store (its own connection or small pool). */
export interface Insights {
  store: InsightStore;
  stats: StatsService;
  collector: Collector;
  storms: StormMonitor;
}

/** Everything the app is made of. New services are added here, as fields built in buildServices. */
export interface Services {
  config: Env;
  /** Prisma Client for everything off the hot path: repositories in lib/store/prisma take it. */
  db: Db;
  gate: GateServices;
  operators: Operators;
  insights: Insights;
  /** Per-project MCP and HTTP upstreams; their secrets are sealed with the install's key. */
  upstreams: { service: UpstreamService };
  /** Every outbound call goes through the project's allowlist. */
  outbound: Outbound;
  mcp: Mcp;
  /** The HTTP tools gateway (/gw/{upstream}/…). */
  httpGateway: HttpGateway;
  /** Previews a begin under a `preview` policy must redeem. */
  previews: PreviewService;
  /** Run aborts and compensations: the gate tells it of every complete. */
  sagas: SagaService;
  /** What waits for a human: failed compensations, unknown status checks, unfinished operations. */
  operatorQueue: OperatorQueue;
  /** Alert channels and rules, and the worker that delivers alerts from the outbox. */
  alerts: { service: AlertService; dispatcher: AlertDispatcher };
  /** The keys every instance on the database must share (boot checks them: shared-keys.ts). */
  sharedKeys: SharedKey[];
  /** Budgets, operators' side: a run's spend and an operator's raise. */
  budgets: RunBudgetService;
  close(): Promise<void>;
}

/**
 * Builds every service once, from the config, in dependency order: stores first, then the
 * operators' resend services, then the gate service that asks them for bypasses. Each group is
 * built on first use, so a script that only collects garbage never opens the operators' database
 * or resolves the auth secret; a server builds them all at boot. The mutual needs — the gate tells
 * the saga service of each complete and asks the preview service to redeem tokens, and both act
 * through the gate — are closures here, called only after both exist: no import cycle, no dynamic
 * import.
 */
export function buildServices(config: Env): Services {
  const sqlite = {
    sqliteSynchronous: config.IDEMGATE_SQLITE_SYNCHRONOUS,
    sqliteWriter: config.IDEMGATE_SQLITE_WRITER,
    sqliteBusyTimeoutMs: config.IDEMGATE_SQLITE_BUSY_TIMEOUT_MS,
  };
  const pgTimeouts = pgTimeoutsFrom(config);
  // Timed per request, for the store's share in Server-Timing (lib/http/server-timing.ts).
  const store = once(() => timedStore(openStore({ databaseUrl: config.DATABASE_URL, pgPoolSize: config.IDEMGATE_PG_POOL_SIZE, pgTimeouts, ...sqlite })));
  const policySource = once(() => new StorePolicySource(store()));
  const db = once(() =>
    openDb({ databaseUrl: config.DATABASE_URL, sqliteBusyTimeoutMs: config.IDEMGATE_SQLITE_BUSY_TIMEOUT_MS, sqliteSynchronous: config.IDEMGATE_SQLITE_SYNCHRONOUS, pgTimeouts }),
  );
  const policyRepository = once(() => new PolicyRepository(db()));
  const apiKeyAuth = once(() => new ApiKeyAuthenticator(store()));
  const authSecret = once(() => resolveAuthSecret(config.BETTER_AUTH_SECRET, config.IDEMGATE_DATA_DIR));
  const operators = once(() => buildOperators(config, db(), store(), policySource(), apiKeyAuth(), authSecret()));
  const gate = once(
    (): GateServices => ({
      store: store(),
      service: new TracedGateService(store(), policySource(), {
        bypass: operators().bypass,
        afterComplete: (record, policy, repeated) => sagas().afterComplete(record, policy, repeated),
        previews: { redeem: (projectId, token, call) => previews().redeem(projectId, token, call) },
        // Shared by every instance on the database, so one instance recognises another's earlier leases.
        leaseTokens: new LeaseTokens(authSecret()),
      }),
      auth: apiKeyAuth(),
      policies: new PolicyService(store(), policyRepository()),
      policySource: policySource(),
    }),
  );
  const insights = once(() => buildInsights(config, store(), policySource(), policyRepository()));
  const secretsKey = once(() => resolveSecretsKey(config.IDEMGATE_SECRETS_KEY, config.IDEMGATE_DATA_DIR));
  const secretBox = once(() => new SecretBox(secretsKey()));
  const stdioCommands = once(() => new StdioCommandCatalog(parseStdioCommands(config.IDEMGATE_STDIO_COMMANDS)));
  const outbound = once(() => createOutbound(db(), store()));
  const upstreams = once(() => ({
    service: new UpstreamService(new UpstreamRepository(db()), secretBox(), stdioCommands(), (projectId, url) => outbound().guard.assertAllowed(projectId, url)),
  }));
  const alerts = once(() => {
    const store = new PrismaAlertRepository(db());
    // Alerts carry links to it to outside receivers: never a userinfo BETTER_AUTH_URL may hold.
    const baseUrl = stripUserinfo(config.IDEMGATE_PUBLIC_URL ?? config.BETTER_AUTH_URL ?? "");
    const dispatcher = new AlertDispatcher({
      store,
      box: secretBox(),
      fetch: (projectId, url, init) => outbound().guard.fetch(projectId, url, init),
      storm: async (projectId, id) => {
        const storm = await insights().store.findStorm(projectId, id);
        return storm ? (toWireStorm(storm) as unknown as Record<string, unknown>) : null;
      },
      baseUrl,
      backoff: { baseMs: config.IDEMGATE_ALERT_BACKOFF_MS, maxMs: config.IDEMGATE_ALERT_MAX_BACKOFF_MS, maxAttempts: config.IDEMGATE_ALERT_MAX_ATTEMPTS },
      timeoutMs: config.IDEMGATE_ALERT_TIMEOUT_MS,
      groupWaitMs: config.IDEMGATE_ALERT_GROUP_WAIT_MS,
      timedScanMs: config.IDEMGATE_ALERT_SCAN_MS,
      leaseMs: Math.max(config.IDEMGATE_ALERT_LEASE_MS, config.IDEMGATE_ALERT_TIMEOUT_MS + 1_000),
      retentionMs: config.IDEMGATE_EVENT_RETENTION_DAYS * 86_400_000,
    });
    const service = new AlertService({
      store,
      box: secretBox(),
      assertAllowed: (projectId, url) => outbound().guard.assertAllowed(projectId, url),
      baseUrl,
      kick: () => void dispatcher.tick().catch(() => undefined),
    });
    return { service, dispatcher };
  });
  const mcp = once(() =>
    buildMcp({
      gate: gate().service,
      upstreams: upstreams().service,
      guard: outbound().guard,
      policies: gate().policies,
      resends: () => operators().resends,
      previews: () => previews(),
      db: db(),
    }),
  );
  const httpGateway = once(() => buildHttpGateway(gate().service, upstreams().service, outbound().guard, () => operators().resends));
  const previews = once(() => new PreviewService(new PreviewRepository(db()), gate().service));
  const knownRuns = once(() => new KnownRuns(new KnownRunsRepository(db())));
  const sagas = once(() => new SagaService(new RunAbortRepository(db()), knownRuns(), gate().service, () => operators().store));
  const operatorQueue = once(() => new OperatorQueue(new OperatorQueueRepository(db()), sagas));
  const budgets = once(() => new RunBudgetService(new RunBudgetRepository(db()), knownRuns(), policySource()));
  return {
    config,
    get budgets() {
      return budgets();
    },
    get db() {
      return db();
    },
    get gate() {
      return gate();
    },
    get operators() {
      return operators();
    },
    get insights() {
      return insights();
    },
    get upstreams() {
      return upstreams();
    },
    get outbound() {
      return outbound();
    },
    get mcp() {
      return mcp();
    },
    get httpGateway() {
      return httpGateway();
    },
    get previews() {
      return previews();
    },
    get sagas() {
      return sagas();
    },
    get operatorQueue() {
      return operatorQueue();
    },
    get alerts() {
      return alerts();
    },
    get sharedKeys() {
      return [
        { setting: "IDEMGATE_SECRETS_KEY" as const, key: secretsKey() },
        { setting: "BETTER_AUTH_SECRET" as const, key: authSecret() },
      ];
    },
    close: async () => {
      await Promise.all([insights.built?.store.close(), db.built?.$disconnect()]);
      await store.built?.close();
    },
  };
}

/** A value built on first call; `built` shows whether it was (so close() opens nothing). */
function once<T>(build: () => T): (() => T) & { built?: T } {
  const get: (() => T) & { built?: T } = () => (get.built ??= build());
  return get;
}

function buildOperators(config: Env, prisma: Db, gateStore: GateStore, policySource: StorePolicySource, apiKeyAuth: ApiKeyAuthenticator, authSecret: string): Operators {
  const store = new PrismaOperatorStore(prisma);
  const auth = createAuth({
    db: prisma,
    secret: authSecret,
    baseURL: config.BETTER_AUTH_URL ?? config.IDEMGATE_LISTEN_URL,
    secureCookies: config.IDEMGATE_SECURE_COOKIES ?? config.BETTER_AUTH_URL?.startsWith("https://") ?? false,
    signInPerMinute: config.IDEMGATE_SIGN_IN_RATE_LIMIT,
  });
  const resends = new ResendService(store, gateStore, policySource, { tokenTtlMs: config.IDEMGATE_BYPASS_TOKEN_TTL_SECONDS * 1000 });
  const createUser = userCreator(auth);
  const records = new OperatorRecords(store, gateStore, policySource);
  return {
    store,
    auth,
    createUser,
    resends,
    bypass: new ResendBypassGate(store, resends),
    records,
    apiKeys: new OperatorApiKeys(store, apiKeyAuth),
    members: new OperatorMembers(store, createUser, hashLikeSignUp),
    explorer: new CallExplorer(store, records, policySource, gateStore),
  };
}

function buildInsights(config: Env, store: GateStore, policySource: StorePolicySource, policies: PolicyRepository): Insights {
  const insightStore = openInsightStore({
    databaseUrl: config.DATABASE_URL,
    sqliteSynchronous: config.IDEMGATE_SQLITE_SYNCHRONOUS,
    sqliteBusyTimeoutMs: config.IDEMGATE_SQLITE_BUSY_TIMEOUT_MS,
    pgTimeouts: pgTimeoutsFrom(config, "background"),
  });
  if (config.IDEMGATE_STORM_WEBHOOK_URL) {
    console.warn("[idemgate] IDEMGATE_STORM_WEBHOOK_URL is no longer read: add a webhook channel and storm rules in Settings → Alerts (same payload, now signed and retried from an outbox)");
  }
  const announce = ({ type, storm }: StormNotice) => {
    console.log(`[idemgate] ${type} ${storm.projectId}/${storm.tool}: ${storm.peakHits} dedup hits in ${storm.windowSeconds} s (baseline ${storm.baseline.toFixed(1)})`);
    recordStormTransition(type, storm).catch(() => undefined);
  };
  return {
    store: insightStore,
    stats: new StatsService(insightStore, store),
    collector: new Collector(insightStore, {
      eventRetentionDays: config.IDEMGATE_EVENT_RETENTION_DAYS,
      rollupRetentionDays: config.IDEMGATE_ROLLUP_RETENTION_DAYS,
    }),
    storms: new StormMonitor({ store: insightStore, policies: policySource, tools: policies, onTransition: announce }),
  };
}

// Process-wide, not in a module variable: Next.js loads this module once per layer (the boot hook,
// route handlers, pages), and they must all share one set of connections. Whichever layer asks
// first (the boot hook) builds them with its own module copies, so a service must carry any
// module-level state its callers need (see Mcp.bindScope) rather than have them import it.
const held = processSlot<Services>("services");

/** The server process's services, built from the environment on first use. */
export function services(): Services {
  return held.getOrCreate(() => buildServices(env()));
}
