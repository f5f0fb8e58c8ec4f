import { env } from "../env";
import { openStore } from "../store/open-store";
import type { GateStore } from "../store/types";
import { ApiKeyAuthenticator } from "./api-keys";
import { GateService } from "./gate-service";
import { defaultPolicies } from "./policy-source";

export interface Gate {
  store: GateStore;
  service: GateService;
  auth: ApiKeyAuthenticator;
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
    });
    holder.__idemgate = { store, service: new GateService(store, defaultPolicies), auth: new ApiKeyAuthenticator(store) };
  }
  return holder.__idemgate;
}
