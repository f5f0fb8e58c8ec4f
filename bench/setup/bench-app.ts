import { type Env, env } from "../../lib/env";
import { type Services, buildServices } from "../../lib/server/composition-root";

/** The app's services over one bench database, built by the composition root like a server's. */
export function benchApp(databaseUrl: string, sqliteSynchronous?: "full" | "normal", more: Partial<Env> = {}): Services {
  return buildServices({ ...env(), DATABASE_URL: databaseUrl, ...(sqliteSynchronous ? { IDEMGATE_SQLITE_SYNCHRONOUS: sqliteSynchronous } : {}), ...more });
}
