import { copyFileSync, renameSync, writeFileSync } from "node:fs";
import path from "node:path";
import { TEST_ADMIN_TOKEN } from "./admin-client";
import { type TestServer, launchServer } from "./launch-server";
import { OPERATOR_ENV } from "./operator-client";
import { adminQuery, postgresUrlFor } from "./postgres";
import { TEST_ENV } from "./server-env";

export type SharedProvider = "sqlite" | "postgres";

/** What a test file is given of a shared server: where it answers and the database behind it. */
export interface SharedServerInfo {
  baseUrl: string;
  databaseUrl: string;
}

/** The rendezvous file's content: each server as soon as it is ready, or why none will be. */
export interface SharedServersState {
  primary: Partial<Record<SharedProvider, SharedServerInfo>>;
  /** A second instance on the same database, for the files that test two processes. */
  secondary: Partial<Record<SharedProvider, SharedServerInfo>>;
  /** Why a server ("sqlite primary", …) will never be announced. */
  failed: Record<string, string>;
  /** Why none will be (the shared databases could not be made). */
  error?: string;
}

/**
 * The shared servers' settings: the union of what the files on them need (an instance admin who
 * can sign in, the admin token, the keys every test server has). A file that needs anything else
 * (a shorter interval, a rate limit, a restart, a database of its own) starts a server of its own.
 */
export const SHARED_SERVER_ENV: Record<string, string> = {
  ...TEST_ENV,
  ...OPERATOR_ENV,
  IDEMGATE_ADMIN_TOKEN: TEST_ADMIN_TOKEN,
  // Postgres: 50 begins of one run queue on its budget row (budgets-shadow, shadow-equals-enforce);
  // on a loaded machine that is longer than production's 2 s lock and 5 s statement timeouts. No
  // file on these servers tests those timeouts (store-timeouts.test.ts has servers of its own).
  IDEMGATE_PG_LOCK_TIMEOUT_MS: "60000",
  IDEMGATE_PG_STATEMENT_TIMEOUT_MS: "60000",
};

/**
 * Once per integration run: two servers per provider on one database of their own, for the files
 * that need no server of their own (test/helpers/shared-server.ts). Each such file creates its own
 * projects and API keys there, so it sees nothing of the others. A boot is ~2.5 s of a core
 * (Next.js prepares, migrations are checked, the admin is bootstrapped), its stop more: four boots
 * instead of one or two per file and provider.
 *
 * Global setup does not wait for them: they boot while the unit project runs, and each is written
 * to `file` when it answers (a file on them waits for its entry).
 */
/**
 * Every file on a shared server fails if its boot does, where a server of a file's own fails that
 * file only: a boot that failed is tried again (a loaded machine has exceeded the first admin's
 * 5 s transaction while booting; the failed transaction left nothing behind).
 */
async function launchWithRetries(databaseUrl: string, tmpRoot: string, label: string): Promise<TestServer> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await launchServer(databaseUrl, tmpRoot, SHARED_SERVER_ENV);
    } catch (error) {
      if (attempt >= BOOT_ATTEMPTS) throw error;
      console.warn(`[idemgate tests] the shared ${label} server failed to boot (attempt ${attempt} of ${BOOT_ATTEMPTS}), booting it again:\n${error}`);
    }
  }
}

const BOOT_ATTEMPTS = 3;

export function startSharedServers(options: { tmpRoot: string; sqliteTemplate: string; postgresTemplate: string | null; file: string }) {
  const state: SharedServersState = { primary: {}, secondary: {}, failed: {} };
  const publish = () => {
    writeFileSync(`${options.file}.tmp`, JSON.stringify(state));
    renameSync(`${options.file}.tmp`, options.file);
  };
  const databases: { provider: SharedProvider; url: string; drop(): Promise<void> }[] = [];
  const servers: TestServer[] = [];
  let stopping = false;

  const booted = (async () => {
    const sqliteFile = path.join(options.tmpRoot, "shared.db");
    copyFileSync(options.sqliteTemplate, sqliteFile);
    databases.push({ provider: "sqlite", url: `file:${sqliteFile}`, drop: async () => undefined });
    if (options.postgresTemplate) {
      const name = `${options.postgresTemplate}_shared`;
      await adminQuery(`CREATE DATABASE ${name} TEMPLATE ${options.postgresTemplate}`);
      databases.push({ provider: "postgres", url: postgresUrlFor(name), drop: () => adminQuery(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) });
    }
    // One after the other (on 2 cores two boots at once take as long as two in a row), the first
    // instance of each provider first: most files need only that one.
    // One that fails (after its retries) leaves the others to boot: only its own files fail.
    for (const role of ["primary", "secondary"] as const) {
      for (const db of databases) {
        if (stopping) return;
        try {
          const server = await launchWithRetries(db.url, options.tmpRoot, `${db.provider} ${role}`);
          servers.push(server);
          state[role][db.provider] = { baseUrl: server.baseUrl, databaseUrl: db.url };
        } catch (error) {
          state.failed[`${db.provider} ${role}`] = String(error instanceof Error ? (error.stack ?? error.message) : error);
        }
        publish();
      }
    }
  })().catch((error: unknown) => {
    state.error = String(error instanceof Error ? (error.stack ?? error.message) : error);
    publish();
  });

  const stop = async () => {
    stopping = true;
    await booted;
    // DEBUG_SERVER=1 prints what the shared servers logged, as a file's own server would be read.
    if (process.env.DEBUG_SERVER) for (const server of servers) console.log(server.output());
    await Promise.all(servers.map((server) => server.stop().catch((error) => console.error(`[idemgate tests] shared server: ${error}`))));
    await Promise.all(databases.map((db) => db.drop()));
  };
  publish();
  return { stop };
}
