import { chmodSync, closeSync, existsSync, mkdirSync, openSync } from "node:fs";
import path from "node:path";

/** Owner-only, like the secret files: the database holds args, results, password hashes and tokens. */
export const SQLITE_FILE_MODE = 0o600;
const COMPANIONS = ["", "-wal", "-shm", "-journal"];

/**
 * Creates the database file owner-only before SQLite (or Prisma's migrate) first opens it, and
 * tightens a file and companions left readable by an older version. SQLite creates the -wal and
 * -shm files with the mode of the database file, so fixing that mode fixes theirs too.
 */
export function secureSqliteFiles(file: string): void {
  mkdirSync(path.dirname(file), { recursive: true });
  // The mode only applies on creation ("a" never truncates), so a concurrent opener loses nothing.
  if (!existsSync(file)) closeSync(openSync(file, "a", SQLITE_FILE_MODE));
  for (const suffix of COMPANIONS) {
    try {
      chmodSync(`${file}${suffix}`, SQLITE_FILE_MODE);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
    }
  }
}
