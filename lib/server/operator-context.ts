import { type Auth, createAuth } from "../auth/auth";
import { resolveAuthSecret } from "../auth/auth-secret";
import { userCreator } from "../auth/create-user";
import { env } from "../env";
import { type OperatorDb, openOperatorDb } from "../store/connection/operator-db";
import type { OperatorStore } from "../store/ports/operator-store";
import { getGate } from "./gate";
import { OperatorApiKeys } from "./operator-api-keys";
import { type CreateUser, OperatorMembers } from "./operator-members";
import { OperatorRecords } from "./operator-records";
import { pgTimeoutsFrom } from "./pg-timeouts";
import { StorePolicySource } from "./policy-source";
import { ResendBypassGate } from "./resend-bypass";
import { ResendService } from "./resend-service";

export interface Operators {
  db: OperatorDb;
  store: OperatorStore;
  auth: Auth;
  createUser: CreateUser;
  resends: ResendService;
  bypass: ResendBypassGate;
  records: OperatorRecords;
  apiKeys: OperatorApiKeys;
  members: OperatorMembers;
}

const holder = globalThis as unknown as { __idemgateOperators?: Operators };

/** The operator side of a server process: its own connection (shared with better-auth) and services. */
export function getOperators(): Operators {
  if (!holder.__idemgateOperators) {
    const config = env();
    const gate = getGate();
    const db = openOperatorDb({
      databaseUrl: config.DATABASE_URL,
      sqliteSynchronous: config.IDEMGATE_SQLITE_SYNCHRONOUS,
      sqliteBusyTimeoutMs: config.IDEMGATE_SQLITE_BUSY_TIMEOUT_MS,
      pgTimeouts: pgTimeoutsFrom(config),
    });
    const auth = createAuth({
      database: db.auth,
      secret: resolveAuthSecret(config.BETTER_AUTH_SECRET, config.IDEMGATE_DATA_DIR),
      baseURL: config.BETTER_AUTH_URL,
      secureCookies: config.IDEMGATE_SECURE_COOKIES ?? config.BETTER_AUTH_URL?.startsWith("https://") ?? false,
      signInPerMinute: config.IDEMGATE_SIGN_IN_RATE_LIMIT,
    });
    const policies = new StorePolicySource(gate.store);
    const resends = new ResendService(db.store, gate.store, policies, { tokenTtlMs: config.IDEMGATE_BYPASS_TOKEN_TTL_SECONDS * 1000 });
    const createUser = userCreator(auth);
    holder.__idemgateOperators = {
      db,
      store: db.store,
      auth,
      createUser,
      resends,
      bypass: new ResendBypassGate(db.store, resends),
      records: new OperatorRecords(db.store, gate.store, policies),
      apiKeys: new OperatorApiKeys(db.store, gate.auth),
      members: new OperatorMembers(db.store, createUser),
    };
  }
  return holder.__idemgateOperators;
}
