// postinstall: generate both Prisma clients (SQLite and Postgres). Each CLI call needs a
// DATABASE_URL whose scheme matches the schema's provider, though nothing is connected to.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";

if (!existsSync("node_modules/prisma/build/index.js")) process.exit(0);
const targets = [
  ["prisma/schema.prisma", "file:./data/idemgate.db"],
  ["prisma/postgres/schema.prisma", "postgresql://postgres@127.0.0.1:5432/postgres"],
];
for (const [schema, url] of targets) {
  const result = spawnSync(process.execPath, ["node_modules/prisma/build/index.js", "generate", "--schema", schema], {
    stdio: ["ignore", "ignore", "inherit"],
    env: { ...process.env, DATABASE_URL: url, CHECKPOINT_DISABLE: "1", PRISMA_HIDE_UPDATE_MESSAGE: "1" },
  });
  if (result.status !== 0) process.exit(result.status ?? 1);
}
console.log("prisma clients generated (sqlite, postgres)");
