import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { env } from "../env";
import { parseDatabaseUrl } from "../store/connection/database-url";
import { preparePostgresTls } from "../store/connection/pg-pool";
import { ensureMigrated } from "../store/connection/migrate";
import { bootstrapAdmin } from "../auth/bootstrap-admin";
import { DEMO_LOCAL_ONLY_NOTICE, demoPasswordActive } from "../auth/demo-password";
import { startBackgroundJobs } from "./background-jobs";
import { services } from "./composition-root";
import { createProjectWithKey } from "./operators/projects";
import { assertSharedKeys } from "./shared-keys";

export const DEMO_PROJECT_ID = "proj_demo";

/**
 * Server start: migrate the database if needed, seed the demo project and the first admin once,
 * then start the collector and storm detector loops.
 */
export async function boot(progress: BootProgress = { stage: "" }): Promise<void> {
  const config = env();
  progress.stage = "connecting to the database";
  const target = parseDatabaseUrl(config.DATABASE_URL);
  // First contact with the database: a URL asking for TLS the server cannot give stops the start here.
  await preparePostgresTls(target);
  progress.stage = "migrating";
  const migrated = await ensureMigrated(target);
  if (migrated === "migrated") console.log(`[idemgate] migrated ${target.provider} database`);
  // Before anything is sealed or signed: an instance whose keys differ from its peers' stops here.
  progress.stage = "checking the shared keys";
  await assertSharedKeys(services().gate.store, services().sharedKeys, Date.now());
  progress.stage = "seeding";
  if (config.IDEMGATE_SEED_DEMO) await seedDemoProject(config.IDEMGATE_DATA_DIR, config.IDEMGATE_DEMO_SHADOW);
  progress.stage = "creating the first admin";
  const { operators } = services();
  await bootstrapAdmin(
    { store: operators.store, createUser: operators.createUser },
    { adminEmail: config.ADMIN_EMAIL, adminPassword: config.ADMIN_PASSWORD, seedDemo: config.IDEMGATE_SEED_DEMO },
  );
  if (await demoPasswordActive(operators.auth, operators.store)) console.warn(`[idemgate] ${DEMO_LOCAL_ONLY_NOTICE}`);
  progress.stage = "starting the background jobs";
  startBackgroundJobs();
}

/** What boot is waiting on, for the log of a start that takes long. */
export interface BootProgress {
  stage: string;
}

const SLOW_BOOT_NOTICE_MS = 15_000;

/** A server that cannot boot stops, saying why, rather than keep its port open and fail every request. */
export async function bootOrExit(): Promise<void> {
  // Requests wait for boot: a start held up by the database says what it waits on, rather than
  // leave an operator (or a test) with a port that answers nothing.
  const progress: BootProgress = { stage: "" };
  const startedAt = Date.now();
  const notice = setInterval(() => {
    console.warn(`[idemgate] still starting after ${Math.round((Date.now() - startedAt) / 1000)} s: ${progress.stage}`);
  }, SLOW_BOOT_NOTICE_MS);
  notice.unref();
  try {
    await boot(progress);
  } catch (error) {
    console.error(`[idemgate] cannot start (while ${progress.stage}): ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  } finally {
    clearInterval(notice);
  }
}

async function seedDemoProject(dataDir: string, shadow: boolean): Promise<void> {
  const created = await createProjectWithKey(services().gate.store, "Demo project", { projectId: DEMO_PROJECT_ID });
  if (!created) return;
  // Every tool inherits the project's `*` layer: in shadow mode the gate only records what it would have done.
  if (shadow) {
    await services().gate.policies.update(DEMO_PROJECT_ID, "*", { mode: "shadow" }, { reason: "IDEMGATE_DEMO_SHADOW: the demo starts in shadow mode", author: "idemgate" });
  }
  const keyFile = path.resolve(dataDir, "demo-key.txt");
  mkdirSync(path.dirname(keyFile), { recursive: true });
  writeFileSync(keyFile, `${created.apiKey.key}\n`, { mode: 0o600 });
  console.log(
    [
      "",
      "  Idemgate: created the demo project.",
      `  Demo API key (shown once, also saved to ${path.relative(process.cwd(), keyFile)}):`,
      `    ${created.apiKey.key}`,
      "",
    ].join("\n"),
  );
}
