import { z } from "zod";
import { DEFAULT_DATABASE_URL } from "./store/database-url";

const bool = z
  .enum(["true", "false", "1", "0", ""])
  .transform((value) => value === "true" || value === "1");

/** The only module that reads process.env; everything else asks it. */
const EnvSchema = z.object({
  DATABASE_URL: z.string().min(1).default(DEFAULT_DATABASE_URL),
  /** full: an answered `execute` survives power loss; normal: survives a process crash only. */
  IDEMGATE_SQLITE_SYNCHRONOUS: z.enum(["full", "normal"]).default("full"),
  IDEMGATE_DATA_DIR: z.string().min(1).default("data"),
  IDEMGATE_SEED_DEMO: bool.default(true),
  IDEMGATE_PG_POOL_SIZE: z.coerce.number().int().min(1).max(200).default(10),
  /** How long a SQLite writer waits for another process's lock before answering 503. */
  IDEMGATE_SQLITE_BUSY_TIMEOUT_MS: z.coerce.number().int().min(0).max(60_000).default(5_000),
});

export type Env = z.infer<typeof EnvSchema>;

let cached: Env | undefined;

export function env(): Env {
  if (!cached) {
    const parsed = EnvSchema.safeParse(process.env);
    if (!parsed.success) {
      throw new Error(`invalid environment: ${z.prettifyError(parsed.error)}`);
    }
    cached = parsed.data;
  }
  return cached;
}
