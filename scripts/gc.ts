// npm run gc: one full collection (expired records, old events, old rollups and closed storms)
// against DATABASE_URL, then a line saying what was purged. Safe beside running servers and other
// collectors: every delete is a bounded, idempotent batch (lib/server/collector.ts).
import { env } from "../lib/env";
import { buildServices } from "../lib/server/composition-root";
import { parseDatabaseUrl } from "../lib/store/connection/database-url";
import { preparePostgresTls } from "../lib/store/connection/pg-pool";
import { ensureMigrated } from "../lib/store/connection/migrate";

async function main(): Promise<void> {
  const config = env();
  // The tables this purges arrive with migrations: bring an older database up to date, as a server start would.
  const target = parseDatabaseUrl(config.DATABASE_URL);
  await preparePostgresTls(target);
  await ensureMigrated(target);
  const app = buildServices(config);
  try {
    const report = await app.insights.collector.collect();
    console.log(
      `[idemgate gc] purged ${report.records} expired records, ${report.events} events older than ${config.IDEMGATE_EVENT_RETENTION_DAYS} d, ` +
        `${report.rollups} rollups and ${report.storms} closed storms older than ${config.IDEMGATE_ROLLUP_RETENTION_DAYS} d in ${report.ms} ms`,
    );
  } finally {
    await app.close();
  }
}

main().catch((error) => {
  console.error(`[idemgate gc] failed: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
