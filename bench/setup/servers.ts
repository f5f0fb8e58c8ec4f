import { type TestServer, launchServer } from "../../test/helpers/launch-server";

export type { TestServer };

/**
 * Settings of every benchmarked `next start`: the periodic storm detector and collector are off,
 * so a background pass cannot land inside one cell and not another (they are measured on their
 * own in the stats cells); one auth secret, as instances sharing a Postgres need.
 */
export function benchServerEnv(sqliteSynchronous: "full" | "normal"): Record<string, string> {
  return {
    IDEMGATE_STORM_INTERVAL_MS: "0",
    IDEMGATE_COLLECTOR_INTERVAL_MS: "0",
    IDEMGATE_SQLITE_SYNCHRONOUS: sqliteSynchronous,
    BETTER_AUTH_SECRET: "idemgate-bench-secret-0123456789abcdef",
  };
}

/** The servers of one run, stopped together at the end. */
export class BenchServers {
  private readonly started: TestServer[] = [];

  constructor(
    private readonly tmpRoot: string,
    private readonly env: Record<string, string>,
  ) {}

  /** `checkout`: another Idemgate tree and how it serves (the `--baseline` worktree), else this one. */
  async launch(databaseUrl: string, checkout?: { dir: string; server: "serve" | "next" }): Promise<TestServer> {
    const server = await launchServer(databaseUrl, this.tmpRoot, this.env, checkout?.server, checkout?.dir);
    this.started.push(server);
    return server;
  }

  async stopAll(): Promise<void> {
    await Promise.all(this.started.map((server) => server.stop()));
  }
}
