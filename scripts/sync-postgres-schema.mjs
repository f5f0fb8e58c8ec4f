// Writes prisma/postgres/schema.prisma from prisma/schema.prisma: the two differ only in the
// datasource provider and the generated client's output. `--check` fails when they have drifted.
import { readFileSync, writeFileSync, mkdirSync } from "node:fs";
import { fileURLToPath } from "node:url";
import path from "node:path";

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const sqlitePath = path.join(root, "prisma/schema.prisma");
const postgresPath = path.join(root, "prisma/postgres/schema.prisma");

export function postgresSchemaFrom(sqliteSchema) {
  const out = sqliteSchema
    .replace('provider = "sqlite"', 'provider = "postgresql"')
    .replace('output     = "../lib/store/generated/sqlite"', 'output     = "../../lib/store/generated/postgres"')
    .replace(/^\/\/ Idemgate storage\.[^\n]*\n/, "// GENERATED from prisma/schema.prisma by scripts/sync-postgres-schema.mjs: do not edit.\n// Idemgate storage.\n");
  if (out.includes('"sqlite"')) throw new Error("provider replacement failed");
  return out;
}

const expected = postgresSchemaFrom(readFileSync(sqlitePath, "utf8"));
if (process.argv.includes("--check")) {
  let actual = "";
  try { actual = readFileSync(postgresPath, "utf8"); } catch {}
  if (actual !== expected) {
    console.error("prisma/postgres/schema.prisma has drifted from prisma/schema.prisma: run node scripts/sync-postgres-schema.mjs");
    process.exit(1);
  }
  console.log("schemas in sync");
} else {
  mkdirSync(path.dirname(postgresPath), { recursive: true });
  writeFileSync(postgresPath, expected);
  console.log("wrote prisma/postgres/schema.prisma");
}
