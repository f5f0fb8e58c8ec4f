import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";

/**
 * The secret better-auth signs session cookies with. From BETTER_AUTH_SECRET when set (required
 * when several gate instances share one Postgres: they must all sign alike); otherwise generated
 * once into the data directory, so a single instance keeps its sessions across restarts.
 */
export function resolveAuthSecret(fromEnv: string | undefined, dataDir: string): string {
  if (fromEnv) return fromEnv;
  const file = path.resolve(dataDir, "auth-secret");
  if (existsSync(file)) return readFileSync(file, "utf8").trim();
  mkdirSync(path.dirname(file), { recursive: true });
  const secret = randomBytes(32).toString("base64url");
  try {
    // wx: if another process wrote it first, use theirs.
    writeFileSync(file, `${secret}\n`, { mode: 0o600, flag: "wx" });
    console.log(`[idemgate] generated the session secret into ${path.relative(process.cwd(), file)}; set BETTER_AUTH_SECRET when running more than one instance`);
    return secret;
  } catch {
    return readFileSync(file, "utf8").trim();
  }
}
