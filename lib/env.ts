import proxyaddr from "proxy-addr";
import { z } from "zod";
import { DEFAULT_DATABASE_URL } from "./store/connection/database-url";
import { parseStdioCommands } from "./server/gateways/upstreams/stdio-commands";
import { hasUserinfo } from "./core/url-credentials";

const bool = z
  .enum(["true", "false", "1", "0", ""])
  .transform((value) => value === "true" || value === "1");

/** The only module that reads process.env; everything else asks it. */
const EnvSchema = z.object({
  DATABASE_URL: z.string().min(1).default(DEFAULT_DATABASE_URL),
  /**
   * full: every claim, completion and lease change is fsynced before it is answered, so it survives
   * power loss (records of decisions already made, such as replays, skip the fsync: lib/store/sqlite-group-commit.ts);
   * normal: everything survives a process crash, but the last commits may be lost to a power cut.
   */
  IDEMGATE_SQLITE_SYNCHRONOUS: z.enum(["full", "normal"]).default("full"),
  /**
   * inline: SQLite commits run on the request thread (each fsync holds up the process); worker: a
   * writer thread with its own connection commits them while requests keep being read and parsed
   * (lib/store/hot/sqlite/writer-thread.ts). Same durability and group commit either way.
   */
  IDEMGATE_SQLITE_WRITER: z.enum(["inline", "worker"]).default("inline"),
  IDEMGATE_DATA_DIR: z.string().min(1).default("data"),
  IDEMGATE_SEED_DEMO: bool.default(true),
  /** Shadow mode from the start: the seeded demo project's default policy (`*`) gets `mode: shadow`. */
  IDEMGATE_DEMO_SHADOW: bool.default(false),
  IDEMGATE_PG_POOL_SIZE: z.coerce.number().int().min(1).max(200).default(10),
  // Postgres waits (lib/store/connection/pg-timeouts.ts): past them a request answers the retryable 503.
  /** Waiting for a free pooled connection (or a new one). */
  IDEMGATE_PG_CONNECT_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(3_000),
  /** Waiting for any one lock. */
  IDEMGATE_PG_LOCK_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(2_000),
  /** Any one statement of a request (agents and operators). */
  IDEMGATE_PG_STATEMENT_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(5_000),
  /** Any one statement of background work (retention, storms, statistics), which scans more. */
  IDEMGATE_PG_BACKGROUND_STATEMENT_TIMEOUT_MS: z.coerce.number().int().min(100).max(3_600_000).default(60_000),
  /** How long a SQLite writer waits for another process's lock before answering 503. */
  /** Bearer token for GET /api/metrics (Prometheus scrape); unset, the endpoint refuses everyone. */
  IDEMGATE_METRICS_TOKEN: z.string().min(16).optional(),
  /** Bearer token for the operator API (/api/v1/admin/…) until operator accounts exist; unset, it refuses everyone. */
  IDEMGATE_ADMIN_TOKEN: z.string().min(16).optional(),
  OTEL_SERVICE_NAME: z.string().min(1).default("idemgate"),
  OTEL_EXPORTER_OTLP_ENDPOINT: z.url().optional(),
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: z.url().optional(),
  OTEL_EXPORTER_OTLP_METRICS_ENDPOINT: z.url().optional(),
  IDEMGATE_SQLITE_BUSY_TIMEOUT_MS: z.coerce.number().int().min(0).max(60_000).default(5_000),
  // Operators (lib/auth). Unset secret: one is generated into IDEMGATE_DATA_DIR (single instance only).
  BETTER_AUTH_SECRET: z.string().min(32).optional(),
  /**
   * More host names this server answers for (DNS rebinding defence: any other Host is refused with
   * 403 by scripts/serve.mjs), comma-separated: `gate.example.com`, `.example.com` (the domain and
   * its subdomains), or `*` (no check: a proxy in front validates Host). Always allowed: localhost,
   * loopback and this machine's addresses, the -H address, and the hosts of BETTER_AUTH_URL and
   * IDEMGATE_PUBLIC_URL.
   */
  IDEMGATE_ALLOWED_HOSTS: z.string().default(""),
  /** The public URL operators open; unset, it is taken from each request (fine behind no proxy). */
  BETTER_AUTH_URL: z.url().optional(),
  /**
   * Set by scripts/serve.mjs, not by users: the address it listens on (`http://localhost:3000`).
   * better-auth's base URL when BETTER_AUTH_URL is unset, so it has one to start with (it warns at
   * every start without); the origin checks still take each request's own site (origin-check.ts).
   */
  IDEMGATE_LISTEN_URL: z.url().optional(),
  /** The first admin, created at start when no user has this email. */
  ADMIN_EMAIL: z.email().optional(),
  ADMIN_PASSWORD: z.string().min(8).max(128).optional(),
  /** Secure cookies; default: on when BETTER_AUTH_URL is https. */
  IDEMGATE_SECURE_COOKIES: bool.optional(),
  /** How long an approved resend's bypass token stays usable. */
  IDEMGATE_BYPASS_TOKEN_TTL_SECONDS: z.coerce.number().int().min(10).max(86_400).default(900),
  /**
   * Proxies whose X-Forwarded-For and X-Forwarded-Proto are believed, comma-separated: addresses,
   * CIDRs, or loopback / linklocal / uniquelocal (proxy-addr). Unset: the socket's peer is the
   * client, whatever the headers say.
   */
  IDEMGATE_TRUSTED_PROXIES: z
    .string()
    .default("")
    .transform((value) => value.split(",").map((entry) => entry.trim()).filter(Boolean))
    .refine((entries) => {
      try {
        proxyaddr.compile(entries);
        return true;
      } catch {
        return false;
      }
    }, "each entry must be an IP address, a CIDR, loopback, linklocal or uniquelocal"),
  /** Absolute session lifetime: a session ends this long after sign-in, however active (sliding idle expiry: 8 h). */
  IDEMGATE_SESSION_MAX_HOURS: z.coerce.number().min(0.001).max(720).default(24),
  /** Sign-in attempts per client IP and minute. */
  // Upstream secrets (lib/server/gateways/upstreams): base64 of 32 bytes, the same on every instance; unset, one is generated into IDEMGATE_DATA_DIR.
  IDEMGATE_SECRETS_KEY: z.string().regex(/^[A-Za-z0-9+/]{43}=$/, "base64 of 32 bytes").optional(),
  /**
   * The commands stdio MCP upstreams may run, as JSON `{ "<name>": { "command", "args", "env", "cwd" } }`
   * (lib/server/gateways/upstreams/stdio-commands.ts): a project admin picks a name, never a command line.
   */
  IDEMGATE_STDIO_COMMANDS: z
    .string()
    .default("")
    .refine((value) => {
      try {
        parseStdioCommands(value);
        return true;
      } catch {
        return false;
      }
    }, 'a JSON object {"<name>": {"command": "…", "args": ["…"]}}; names are lowercase letters, digits, - and _'),
  IDEMGATE_SIGN_IN_RATE_LIMIT: z.coerce.number().int().min(1).max(100_000).default(10),
  // Retention and retry storms (lib/server/collector.ts, storm-monitor.ts).
  /** Raw ledger events are purged after this many days; their per-minute rollups stay. */
  IDEMGATE_EVENT_RETENTION_DAYS: z.coerce.number().int().min(1).max(3_650).default(30),
  /** Rollups (the charts) and closed storms are purged after this many days. */
  IDEMGATE_ROLLUP_RETENTION_DAYS: z.coerce.number().int().min(1).max(3_650).default(400),
  /** How often each server purges expired records and old events; 0 = never (run `npm run gc`). */
  IDEMGATE_COLLECTOR_INTERVAL_MS: z.coerce.number().int().min(0).max(86_400_000).default(60_000),
  /** How often each server looks for retry storms; 0 = never. */
  IDEMGATE_STORM_INTERVAL_MS: z.coerce.number().int().min(0).max(3_600_000).default(5_000),
  /** Replaced by Settings → Alerts (a webhook channel and storm rules): when set, the server only warns at boot. */
  IDEMGATE_STORM_WEBHOOK_URL: z.string().optional(),
  // Alerts (lib/server/alerts): the delivery worker on every server.
  /** How often each server fans out new alert signals and sends due deliveries; 0 = never. */
  IDEMGATE_ALERT_INTERVAL_MS: z.coerce.number().int().min(0).max(3_600_000).default(1_000),
  /** How often timed rules (verify unresolved, approval pending) are scanned and open incidents checked for their resolve. */
  IDEMGATE_ALERT_SCAN_MS: z.coerce.number().int().min(100).max(3_600_000).default(15_000),
  /** One delivery attempt's timeout. */
  IDEMGATE_ALERT_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(10_000),
  /** How long a worker holds a claimed delivery (at least the timeout + 1 s): a crashed worker's delivery is sent again after it. */
  IDEMGATE_ALERT_LEASE_MS: z.coerce.number().int().min(1_000).max(3_600_000).default(60_000),
  /** Delay before the first retry; doubled per attempt up to the max. */
  IDEMGATE_ALERT_BACKOFF_MS: z.coerce.number().int().min(10).max(3_600_000).default(5_000),
  IDEMGATE_ALERT_MAX_BACKOFF_MS: z.coerce.number().int().min(10).max(86_400_000).default(600_000),
  /** Attempts in all before a delivery is marked failed. */
  IDEMGATE_ALERT_MAX_ATTEMPTS: z.coerce.number().int().min(1).max(100).default(12),
  /** Slack: how long an alert waits for others of its channel that fire together, to go out as one message. */
  IDEMGATE_ALERT_GROUP_WAIT_MS: z.coerce.number().int().min(0).max(600_000).default(1_000),
  /** The dashboard's public URL, for links in alerts; default BETTER_AUTH_URL. Echoed in every alert, so never with credentials. */
  IDEMGATE_PUBLIC_URL: z
    .url()
    .refine((value) => !hasUserinfo(value), "credentials in IDEMGATE_PUBLIC_URL (user:password@) are refused: it is echoed in every alert's links")
    .optional(),
  /**
   * Tests only: JSON `{ backendUrl, projectId, apiKey }` turns on the routes under /test-fixtures
   * (lib/http/fixtures); unset, they answer 404.
   */
  IDEMGATE_TEST_FIXTURES: z.string().optional(),
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
