import { inject } from "vitest";
import { type TestServer, launchServer } from "./launch-server";

export type { TestServer };

/**
 * Test clients send bursts (hundreds of begins at once) without the SDK's retry of a 503; on a
 * loaded machine a burst can queue longer for a pooled Postgres connection than production's
 * 3 s acquire timeout. Tests of that timeout set it themselves.
 */
const TEST_ENV = { IDEMGATE_PG_CONNECT_TIMEOUT_MS: "30000" };

/** A real production server (scripts/serve.mjs, as `npm start` runs it) on its own port, with its data dir under this run's temp root. */
export function startServer(databaseUrl: string, extraEnv: Record<string, string> = {}): Promise<TestServer> {
  return launchServer(databaseUrl, inject("tmpRoot"), { ...TEST_ENV, ...extraEnv });
}
