import { copyFileSync } from "node:fs";
import path from "node:path";
import { randomBytes } from "node:crypto";
import { inject } from "vitest";
import { adminQuery, postgresUrlFor } from "./postgres";

export type Provider = "sqlite" | "postgres";

export interface TestDatabase {
  provider: Provider;
  url: string;
  drop(): Promise<void>;
}

/** Providers this run can test: Postgres only when global setup found a server. */
export const PROVIDERS: Provider[] = inject("postgresTemplate") ? ["sqlite", "postgres"] : ["sqlite"];

/**
 * IDEMGATE_SQLITE_WRITER=worker runs the SQLite suites with their commits on a writer thread
 * (#21 item 3): servers read it from the environment they inherit, stores opened by a test are told.
 */
export const SQLITE_WRITER: "inline" | "worker" = process.env.IDEMGATE_SQLITE_WRITER === "worker" ? "worker" : "inline";

export async function createTestDatabase(provider: Provider): Promise<TestDatabase> {
  const suffix = randomBytes(6).toString("hex");
  if (provider === "sqlite") {
    const file = path.join(inject("tmpRoot"), `test_${suffix}.db`);
    copyFileSync(inject("sqliteTemplate"), file);
    return { provider, url: `file:${file}`, drop: async () => undefined };
  }
  const template = inject("postgresTemplate");
  if (!template) throw new Error("no Postgres template: this run has no Postgres");
  const name = `idemgate_test_${suffix}`;
  await adminQuery(`CREATE DATABASE ${name} TEMPLATE ${template}`);
  return {
    provider,
    url: postgresUrlFor(name),
    drop: () => adminQuery(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`),
  };
}
