import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import type { TestProject } from "vitest/node";
import { parseDatabaseUrl } from "../../lib/store/connection/database-url";
import { ensureMigrated } from "../../lib/store/connection/migrate";
import { adminQuery, postgresAvailable, postgresUrlFor } from "./postgres";
import { startSharedServers } from "./shared-servers-setup";

declare module "vitest" {
  export interface ProvidedContext {
    sqliteTemplate: string;
    postgresTemplate: string | null;
    tmpRoot: string;
    /** Where the integration project's shared servers are announced (shared-server.ts); "" elsewhere. */
    sharedServersFile: string;
  }
}

/**
 * Once per run: build the app if its sources changed, and migrate one template database per
 * provider; every test database is a cheap copy of a template. The integration project also gets
 * one shared server per provider (shared-servers-setup.ts).
 */
export default async function setup(project: TestProject) {
  // @ts-expect-error plain .mjs helper without types
  const { buildIfNeeded } = await import("../../scripts/lib/build-if-needed.mjs");
  buildIfNeeded();

  const tmpRoot = mkdtempSync(path.join(os.tmpdir(), "idemgate-test-"));
  const sqliteTemplate = path.join(tmpRoot, "template.db");
  await ensureMigrated(parseDatabaseUrl(`file:${sqliteTemplate}`));

  let postgresTemplate: string | null = null;
  if (await postgresAvailable()) {
    postgresTemplate = `idemgate_tmpl_${process.pid}_${Date.now().toString(36)}`;
    await adminQuery(`CREATE DATABASE ${postgresTemplate}`);
    await ensureMigrated(parseDatabaseUrl(postgresUrlFor(postgresTemplate)));
  } else if (process.env.CI === "true") {
    throw new Error("CI=true but no Postgres answers at TEST_POSTGRES_URL: the Postgres tests cannot be skipped in CI");
  } else {
    console.warn("\n[idemgate tests] no Postgres at TEST_POSTGRES_URL: Postgres tests are SKIPPED\n");
  }

  project.provide("sqliteTemplate", sqliteTemplate);
  project.provide("postgresTemplate", postgresTemplate);
  project.provide("tmpRoot", tmpRoot);

  const sharedServersFile = project.name === "integration" ? path.join(tmpRoot, "shared-servers.json") : "";
  const shared = sharedServersFile ? startSharedServers({ tmpRoot, sqliteTemplate, postgresTemplate, file: sharedServersFile }) : null;
  project.provide("sharedServersFile", sharedServersFile);

  return async () => {
    await shared?.stop();
    if (postgresTemplate) await adminQuery(`DROP DATABASE IF EXISTS ${postgresTemplate} WITH (FORCE)`);
    rmSync(tmpRoot, { recursive: true, force: true });
  };
}
