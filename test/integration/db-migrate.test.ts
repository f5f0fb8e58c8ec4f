import { randomBytes } from "node:crypto";
import { readdirSync } from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, inject, it } from "vitest";
import { PROVIDERS, type Provider } from "../helpers/databases";
import { adminQuery, postgresUrlFor } from "../helpers/postgres";
import { scalar } from "../helpers/sql";
import { runMigrate } from "../helpers/run-migrate";

const committed = (provider: Provider) =>
  readdirSync(provider === "sqlite" ? "prisma/migrations" : "prisma/postgres/migrations", { withFileTypes: true }).filter((e) => e.isDirectory()).length;

const dropped: string[] = [];
afterAll(async () => {
  for (const name of dropped) await adminQuery(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
});

/** A database with nothing in it: what a deploy step meets the first time. */
async function emptyDatabase(provider: Provider): Promise<string> {
  const suffix = randomBytes(6).toString("hex");
  if (provider === "sqlite") return `file:${path.join(inject("tmpRoot"), `migrate_${suffix}`, "idemgate.db")}`;
  const name = `idemgate_migrate_${suffix}`;
  await adminQuery(`CREATE DATABASE ${name}`);
  dropped.push(name);
  return postgresUrlFor(name);
}

describe.each(PROVIDERS)("%s: npm run db:migrate", (provider) => {
  it("applies every committed migration to an empty database, then finds nothing to do", async () => {
    const url = await emptyDatabase(provider);

    const first = await runMigrate(url);
    expect(first.code, first.output).toBe(0);
    expect(first.output).toContain(`${provider} database migrated`);
    expect(await scalar(url, "SELECT COUNT(*) FROM _prisma_migrations WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL")).toBe(committed(provider));
    // The gate's tables are there, empty.
    expect(await scalar(url, "SELECT COUNT(*) FROM call_records")).toBe(0);

    const again = await runMigrate(url);
    expect(again.code, again.output).toBe(0);
    expect(again.output).toContain(`${provider} database already up to date`);
  });
});

describe("npm run db:migrate against a database it cannot reach", () => {
  it("exits 1 with the reason, and never prints the URL's password", async () => {
    const result = await runMigrate("postgresql://deployer:s3cret-pw-42@127.0.0.1:1/idemgate");
    expect(result.code).toBe(1);
    expect(result.output).toContain("[idemgate db:migrate] failed:");
    expect(result.output).not.toContain("s3cret-pw-42");
  });
});
