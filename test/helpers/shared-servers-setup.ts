import { copyFileSync } from "node:fs";
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

/**
 * The shared servers' settings: the union of what the files on them need (an instance admin who
 * can sign in, the admin token, the keys every test server has). A file that needs anything else
 * (a shorter interval, a rate limit, a restart, a second instance) starts a server of its own.
 */
export const SHARED_SERVER_ENV: Record<string, string> = { ...TEST_ENV, ...OPERATOR_ENV, IDEMGATE_ADMIN_TOKEN: TEST_ADMIN_TOKEN };

/**
 * Once per integration run: one server per provider, each on a database of its own, for the files
 * that need no server of their own (test/helpers/shared-server.ts). Each such file creates its own
 * projects and API keys there, so it sees nothing of the others. Booting one server instead of one
 * per file and provider saves seconds of a core each (Next.js prepares, migrations are checked,
 * the admin is bootstrapped), and its stop as much again.
 */
export async function startSharedServers(options: { tmpRoot: string; sqliteTemplate: string; postgresTemplate: string | null }) {
  const databases: { provider: SharedProvider; url: string; drop(): Promise<void> }[] = [];
  const sqliteFile = path.join(options.tmpRoot, "shared.db");
  copyFileSync(options.sqliteTemplate, sqliteFile);
  databases.push({ provider: "sqlite", url: `file:${sqliteFile}`, drop: async () => undefined });
  if (options.postgresTemplate) {
    const name = `${options.postgresTemplate}_shared`;
    await adminQuery(`CREATE DATABASE ${name} TEMPLATE ${options.postgresTemplate}`);
    databases.push({ provider: "postgres", url: postgresUrlFor(name), drop: () => adminQuery(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) });
  }
  const servers: TestServer[] = [];
  const stop = async () => {
    // DEBUG_SERVER=1 prints what the shared servers logged, as a file's own server would be read.
    if (process.env.DEBUG_SERVER) for (const server of servers) console.log(server.output());
    await Promise.all(servers.map((server) => server.stop().catch((error) => console.error(`[idemgate tests] shared server: ${error}`))));
    await Promise.all(databases.map((db) => db.drop()));
  };
  const provided: Partial<Record<SharedProvider, SharedServerInfo>> = {};
  try {
    // One after the other: on 2 cores two boots at once take as long as two in a row.
    for (const db of databases) {
      const server = await launchServer(db.url, options.tmpRoot, SHARED_SERVER_ENV);
      servers.push(server);
      provided[db.provider] = { baseUrl: server.baseUrl, databaseUrl: db.url };
    }
  } catch (error) {
    await stop();
    throw error;
  }
  return { provided, stop };
}
