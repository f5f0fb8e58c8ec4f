import { spawn } from "node:child_process";
import { copyFileSync } from "node:fs";
import path from "node:path";
import { randomBytes } from "node:crypto";
import { adminQuery, postgresAvailable, postgresUrlFor } from "../../test/helpers/postgres";

export interface Templates {
  /** A migrated SQLite file to copy. */
  sqlite?: string;
  /** A migrated Postgres database to use as CREATE DATABASE … TEMPLATE. */
  postgres?: string | null;
}

/**
 * Every database of one run: migrated once per provider (Prisma's migrate deploy costs seconds,
 * more on Postgres), then cheap copies — a file copy for SQLite, CREATE DATABASE … TEMPLATE for
 * Postgres. All dropped at the end.
 */
export class BenchDatabases {
  private readonly suffix = `${process.pid.toString(36)}${randomBytes(3).toString("hex")}`;
  private readonly created: string[] = [];
  private ownTemplate: string | null = null;
  private sqliteTemplate: string | undefined;
  private sqliteTemplateReady: Promise<string> | undefined;
  private postgresTemplate: string | null | undefined;
  private postgresTemplateReady: Promise<string> | undefined;
  private pgUp: boolean | undefined;

  /**
   * @param checkout the Idemgate checkout whose migrations shape the databases: this one, or a
   * `--baseline` worktree of an older commit (its schema as it was then).
   */
  constructor(
    private readonly tmpRoot: string,
    templates: Templates = {},
    private readonly checkout = process.cwd(),
  ) {
    this.sqliteTemplate = templates.sqlite;
    this.postgresTemplate = templates.postgres;
  }

  async postgresAvailable(): Promise<boolean> {
    this.pgUp ??= this.postgresTemplate !== undefined ? this.postgresTemplate !== null : await postgresAvailable();
    return this.pgUp;
  }

  /** A fresh migrated SQLite database: its `file:` URL. */
  async sqlite(name: string): Promise<string> {
    const template = await this.migratedSqliteTemplate();
    const file = path.join(this.tmpRoot, `${name}.db`);
    copyFileSync(template, file);
    return `file:${file}`;
  }

  private migratedSqliteTemplate(): Promise<string> {
    if (this.sqliteTemplate) return Promise.resolve(this.sqliteTemplate);
    this.sqliteTemplateReady ??= (async () => {
      const file = path.join(this.tmpRoot, "template.db");
      await migrateDeploy(`file:${file}`, this.checkout);
      return file;
    })();
    return this.sqliteTemplateReady;
  }

  /** A plain file path for a SQLite database without the gate's schema (the raw floor). */
  sqliteFile(name: string): string {
    return path.join(this.tmpRoot, `${name}.db`);
  }

  /** A fresh migrated Postgres database: its URL. */
  async postgres(name: string): Promise<string> {
    return this.createPostgres(name, await this.migratedPostgresTemplate());
  }

  /**
   * Starts migrating the Postgres template in a child process, so the seconds Prisma's CLI takes
   * (it lingers ~10 s after migrate deploy on Postgres) overlap with the SQLite setup.
   */
  migratedPostgresTemplate(): Promise<string> {
    if (typeof this.postgresTemplate === "string") return Promise.resolve(this.postgresTemplate);
    this.postgresTemplateReady ??= (async () => {
      if (!(await this.postgresAvailable())) throw new Error("no Postgres");
      this.ownTemplate = `idemgate_bench_tmpl_${this.suffix}`;
      await adminQuery(`CREATE DATABASE ${this.ownTemplate}`);
      await migrateDeploy(postgresUrlFor(this.ownTemplate), this.checkout);
      return this.ownTemplate;
    })();
    return this.postgresTemplateReady;
  }

  /** A fresh empty Postgres database (the raw floor has its own one-table schema). */
  postgresEmpty(name: string): Promise<string> {
    return this.createPostgres(name, null);
  }

  private async createPostgres(name: string, template: string | null): Promise<string> {
    const database = `idemgate_bench_${name.replace(/[^a-z0-9]/g, "_")}_${this.suffix}`;
    await adminQuery(`CREATE DATABASE ${database}${template ? ` TEMPLATE ${template}` : ""}`);
    this.created.push(database);
    return postgresUrlFor(database);
  }

  async dropAll(): Promise<void> {
    await this.postgresTemplateReady?.catch(() => undefined);
    for (const database of [...this.created, ...(this.ownTemplate ? [this.ownTemplate] : [])]) {
      await adminQuery(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`).catch((error) =>
        console.error(`[bench] could not drop ${database}: ${(error as Error).message}`),
      );
    }
  }
}

/** lib/store/migrate.ts's `prisma migrate deploy` of `checkout`'s schema, without blocking the event loop. */
function migrateDeploy(url: string, checkout: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join("node_modules", "prisma", "build", "index.js"), "migrate", "deploy"], {
      cwd: checkout,
      env: { ...process.env, DATABASE_URL: url, CHECKPOINT_DISABLE: "1", PRISMA_HIDE_UPDATE_MESSAGE: "1" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout.on("data", (chunk) => (output += chunk));
    child.stderr.on("data", (chunk) => (output += chunk));
    child.on("error", reject);
    child.on("exit", (code) => (code === 0 ? resolve() : reject(new Error(`prisma migrate deploy failed (${code}):\n${output}`))));
  });
}
