// Starts every e2e server at once (one per worker, and the screenshots' own), each on the port
// playwright.config.ts chose, so its BETTER_AUTH_URL is known before it starts; stops them and
// removes the run's temp databases and data dirs at the end. Playwright's own webServer list
// starts its servers one after another (one boot each, tens of seconds on a loaded machine).
import { rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { type TestServer, launchServer } from "../helpers/launch-server";
import { e2eServers } from "./servers";

export default async function globalSetup(): Promise<() => Promise<void>> {
  const { workers, screens } = e2eServers();
  const tmp = process.env.E2E_TMP!;
  const started = await Promise.allSettled(
    [...workers, screens].map((server) =>
      launchServer(
        server.databaseUrl,
        tmp,
        {
          IDEMGATE_DATA_DIR: server.dataDir,
          IDEMGATE_SEED_DEMO: "true",
          // Storm detector passes twice a second, so the storm test needs seconds, not minutes.
          IDEMGATE_STORM_INTERVAL_MS: "500",
          // Every spec signs in afresh from 127.0.0.1: the default 10 sign-ins a minute per address
          // (a guard against password guessing) would answer the suite's own sign-ins with 429.
          IDEMGATE_SIGN_IN_RATE_LIMIT: "100000",
          BETTER_AUTH_URL: server.baseURL,
        },
        "serve",
        path.resolve(__dirname, "../.."),
        server.port,
      ),
    ),
  );
  const servers = started.flatMap((result) => (result.status === "fulfilled" ? [result.value] : []));
  const teardown = async () => {
    await Promise.all(servers.map((server: TestServer) => server.stop()));
    if (path.dirname(tmp) === os.tmpdir() && path.basename(tmp).startsWith("idemgate-e2e-")) rmSync(tmp, { recursive: true, force: true });
  };
  const failed = started.find((result) => result.status === "rejected");
  if (failed) {
    await teardown();
    throw failed.reason;
  }
  return teardown;
}
