import path from "node:path";
import { type PgTls, pgTlsFromUrl } from "./pg-tls";

export type DatabaseTarget =
  | { provider: "sqlite"; file: string; url: string }
  | {
      provider: "postgres";
      url: string;
      host: string;
      port: number;
      user: string;
      password: string | undefined;
      database: string;
      /** sslmode and friends (pg-tls.ts): every pool and client opened on this target honours them. */
      tls: PgTls;
    };

export const DEFAULT_DATABASE_URL = "file:./data/idemgate.db";

/** sqlite `file:` paths are relative to the working directory (the project root under npm start). */
export function parseDatabaseUrl(url: string = DEFAULT_DATABASE_URL): DatabaseTarget {
  if (url.startsWith("postgres://") || url.startsWith("postgresql://")) {
    const parsed = new URL(url);
    return {
      provider: "postgres",
      url,
      host: decodeURIComponent(parsed.hostname) || "127.0.0.1",
      port: parsed.port ? Number(parsed.port) : 5432,
      user: decodeURIComponent(parsed.username) || "postgres",
      password: parsed.password ? decodeURIComponent(parsed.password) : undefined,
      database: decodeURIComponent(parsed.pathname.replace(/^\//, "")) || "postgres",
      tls: pgTlsFromUrl(url),
    };
  }
  if (url.startsWith("file:")) {
    const file = url.slice("file:".length).split("?")[0]!;
    return { provider: "sqlite", url, file: path.resolve(file) };
  }
  throw new Error(`DATABASE_URL must start with file:, postgres:// or postgresql:// (got "${url.split(":")[0]}:")`);
}

export function schemaPathFor(target: DatabaseTarget): string {
  return target.provider === "postgres" ? "prisma/postgres/schema.prisma" : "prisma/schema.prisma";
}
