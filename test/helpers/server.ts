import { inject } from "vitest";
import { type TestServer, launchServer } from "./launch-server";

export type { TestServer };

/** A real `next start` process on its own port, with its data dir under this run's temp root. */
export function startServer(databaseUrl: string, extraEnv: Record<string, string> = {}): Promise<TestServer> {
  return launchServer(databaseUrl, inject("tmpRoot"), extraEnv);
}
