// npm run db:migrate: brings DATABASE_URL (SQLite or Postgres) up to the committed migrations, the
// deploy step before rolling out a new version. A no-op when nothing is pending; instances migrating
// at the same moment are serialised by Prisma's advisory lock, so it is safe beside running servers.
import { env } from "../lib/env";
import { parseDatabaseUrl } from "../lib/store/connection/database-url";
import { preparePostgresTls } from "../lib/store/connection/pg-pool";
import { ensureMigrated } from "../lib/store/connection/migrate";

async function main(): Promise<void> {
  const target = parseDatabaseUrl(env().DATABASE_URL);
  await preparePostgresTls(target);
  const outcome = await ensureMigrated(target);
  // The provider and what happened, never the URL: it may hold a password.
  console.log(`[idemgate db:migrate] ${target.provider} database ${outcome === "migrated" ? "migrated" : "already up to date"}`);
}

main().catch((error) => {
  console.error(`[idemgate db:migrate] failed: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
