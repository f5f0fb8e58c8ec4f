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

interface Templates {
  tmpRoot: string;
  sqliteTemplate: string;
  postgresTemplate: string | null;
}

/**
 * Both projects with a global setup (integration and chaos) run in one group, so both setups run
 * before the first test: the templates are made once for the two (a Postgres template is ~2 s of
 * migrations) and removed when the last of them is torn down.
 */
const run = globalThis as { idemgateTemplates?: Promise<Templates>; idemgateTemplateUsers?: number };

async function makeTemplates(): Promise<Templates> {
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
  return { tmpRoot, sqliteTemplate, postgresTemplate };
}

/**
 * Once per run: build the app if its sources changed, and migrate one template database per
 * provider; every test database is a cheap copy of a template. The integration project also gets
 * one shared server per provider (shared-servers-setup.ts).
 */
export default async function setup(project: TestProject) {
  run.idemgateTemplateUsers = (run.idemgateTemplateUsers ?? 0) + 1;
  const { tmpRoot, sqliteTemplate, postgresTemplate } = await (run.idemgateTemplates ??= makeTemplates());

  project.provide("sqliteTemplate", sqliteTemplate);
  project.provide("postgresTemplate", postgresTemplate);
  project.provide("tmpRoot", tmpRoot);

  const sharedServersFile = project.name === "integration" ? path.join(tmpRoot, "shared-servers.json") : "";
  const shared = sharedServersFile ? startSharedServers({ tmpRoot, sqliteTemplate, postgresTemplate, file: sharedServersFile }) : null;
  project.provide("sharedServersFile", sharedServersFile);

  return async () => {
    await shared?.stop();
    run.idemgateTemplateUsers = (run.idemgateTemplateUsers ?? 1) - 1;
    if (run.idemgateTemplateUsers > 0) return;
    run.idemgateTemplates = undefined;
    if (postgresTemplate) await adminQuery(`DROP DATABASE IF EXISTS ${postgresTemplate} WITH (FORCE)`);
    rmSync(tmpRoot, { recursive: true, force: true });
  };
}
