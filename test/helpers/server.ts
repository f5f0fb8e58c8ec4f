import { inject } from "vitest";
import { type TestServer, launchServer } from "./launch-server";
import { TEST_ENV } from "./server-env";

export type { TestServer };

/** A real production server (scripts/serve.mjs, as `npm start` runs it) on its own port, with its data dir under this run's temp root. */
export function startServer(databaseUrl: string, extraEnv: Record<string, string> = {}): Promise<TestServer> {
  return launchServer(databaseUrl, inject("tmpRoot"), { ...TEST_ENV, ...extraEnv });
}
