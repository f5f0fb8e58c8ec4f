import { defineConfig } from "prisma/config";
import { PrismaBetterSQLite3 } from "@prisma/adapter-better-sqlite3";
import { PrismaPg } from "@prisma/adapter-pg";
import { parseDatabaseUrl, schemaPathFor } from "./lib/store/connection/database-url";
import { catalogSafePool, preparePostgresTls } from "./lib/store/connection/pg-pool";

// The schema (and so the migrations folder) follows DATABASE_URL's scheme; the CLI runs on the JS
// engine through a driver adapter because no engine binaries can be downloaded here.
const target = parseDatabaseUrl(process.env.DATABASE_URL);

export default defineConfig({
  experimental: { adapter: true },
  engine: "js",
  schema: schemaPathFor(target),
  async adapter() {
    if (target.provider === "postgres") {
      await preparePostgresTls(target);
      return new PrismaPg(catalogSafePool(target));
    }
    return new PrismaBetterSQLite3({ url: target.file });
  },
});
