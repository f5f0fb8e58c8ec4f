import { copyFileSync, mkdtempSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { randomBytes } from "node:crypto";
import { parseDatabaseUrl } from "../../lib/store/connection/database-url";
import { ensureMigrated } from "../../lib/store/connection/migrate";

let template: Promise<string> | undefined;

/** One migrated SQLite file per test worker (migrating costs seconds), made on first use. */
function migratedTemplate(): Promise<string> {
  template ??= (async () => {
    const file = path.join(mkdtempSync(path.join(os.tmpdir(), "idemgate-unit-")), "template.db");
    await ensureMigrated(parseDatabaseUrl(`file:${file}`));
    return file;
  })();
  return template;
}

/** A fresh copy of the migrated database: a real SQLite file of its own, no server. */
export async function migratedSqliteFile(label: string): Promise<string> {
  const source = await migratedTemplate();
  const file = path.join(path.dirname(source), `${label}_${randomBytes(6).toString("hex")}.db`);
  copyFileSync(source, file);
  return file;
}
