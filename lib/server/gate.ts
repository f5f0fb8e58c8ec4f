import { resolveAuthSecret } from "../auth/auth-secret";
import { env } from "../env";
import { openStore } from "../store/hot/open-gate-store";
import type { GateStore } from "../store/ports/gate-store";
import { ApiKeyAuthenticator } from "./api-keys";
import { TracedGateService } from "../telemetry/traced-gate-service";
import type { GateService } from "./gate-service";
import { LeaseTokens } from "./lease-tokens";
import { pgTimeoutsFrom } from "./pg-timeouts";
import { StorePolicySource } from "./policy-source";
import { PolicyService } from "./policy-service";
import { lazyBypassGate } from "./resend-bypass-lazy";
import { lazyPreviewGate } from "./previews/preview-lazy";
import { lazyAfterComplete } from "./sagas/saga-lazy";

export interface Gate {
  store: GateStore;
  service: GateService;
  auth: ApiKeyAuthenticator;
  policies: PolicyService;
}

const holder = globalThis as unknown as { __idemgate?: Gate };

/** One store (connection or pool) and service per server process. */
export function getGate(): Gate {
  if (!holder.__idemgate) {
    const config = env();
    const store = openStore({
      databaseUrl: config.DATABASE_URL,
      sqliteSynchronous: config.IDEMGATE_SQLITE_SYNCHRONOUS,
      pgPoolSize: config.IDEMGATE_PG_POOL_SIZE,
      sqliteBusyTimeoutMs: config.IDEMGATE_SQLITE_BUSY_TIMEOUT_MS,
      pgTimeouts: pgTimeoutsFrom(config),
    });
    holder.__idemgate = {
      store,
      service: new TracedGateService(store, new StorePolicySource(store), {
        bypass: lazyBypassGate,
        afterComplete: lazyAfterComplete,
        previews: lazyPreviewGate,
        // Shared by every instance on the database, so one instance recognises another's earlier leases.
        leaseTokens: new LeaseTokens(resolveAuthSecret(config.BETTER_AUTH_SECRET, config.IDEMGATE_DATA_DIR)),
      }),
      auth: new ApiKeyAuthenticator(store),
      policies: new PolicyService(store),
    };
  }
  return holder.__idemgate;
}
