import { type BetterAuthOptions, betterAuth } from "better-auth";
import { prismaAdapter } from "better-auth/adapters/prisma";
import { type Db, providerOf } from "../store/prisma/client";
import { CLIENT_IP_HEADER } from "../http/client-address";
import { siteOrigins } from "./origin-check";

export interface AuthOptions {
  /** The app's Prisma Client (lib/store/prisma/client.ts): better-auth reads and writes through it. */
  db: Db;
  secret: string;
  /** Unset: derived from each request. */
  baseURL?: string;
  secureCookies: boolean;
  signInPerMinute: number;
}

export const AUTH_BASE_PATH = "/api/auth";
export const SESSION_COOKIE = "idemgate.session_token";

/**
 * Operator accounts with better-auth: email + password (scrypt), sessions in the database behind
 * an httpOnly SameSite=Lax cookie. It stores them through its Prisma adapter, in the models
 * prisma/schema.prisma declares (User, Session, Account, Verification: better-auth's own model and
 * field names, mapped onto snake_case tables there); test/integration/operators-schema.test.ts
 * proves they match. Accounts are created by admins only: the sign-up endpoint is never routed
 * (auth-handler.ts).
 *
 * No better-auth transactions on SQLite: its callbacks await other work (hashing, hooks) between
 * statements, and a transaction open across event-loop turns would hold the write lock while the
 * gate store's connection waits for it synchronously. Its writes there are single statements.
 */
export function authOptions(options: AuthOptions) {
  return {
    appName: "Idemgate",
    database: prismaAdapter(options.db, {
      provider: providerOf(options.db) === "postgres" ? "postgresql" : "sqlite",
      transaction: providerOf(options.db) === "postgres",
    }),
    secret: options.secret,
    baseURL: options.baseURL,
    basePath: AUTH_BASE_PATH,
    // better-auth checks the Origin of sign-in and cookie-carrying requests against these: the
    // site the browser addressed, as our own operator routes do (origin-check.ts).
    trustedOrigins: async (request?: Request) => (request ? [...siteOrigins(request)] : []),
    emailAndPassword: { enabled: true, autoSignIn: false, minPasswordLength: 8, maxPasswordLength: 128 },
    user: {
      additionalFields: {
        // input: false — no request can set it; boot.ts grants it to the first admin.
        instanceAdmin: { type: "boolean", required: false, defaultValue: false, input: false },
      },
    },
    session: {
      // A working day, sliding: approvals are sensitive, an idle browser should not stay signed in for a week.
      expiresIn: 8 * 60 * 60,
      updateAge: 60 * 60,
    },
    advanced: {
      cookiePrefix: "idemgate",
      useSecureCookies: options.secureCookies,
      defaultCookieAttributes: { httpOnly: true, sameSite: "lax" },
      // Only the address our server resolved from the socket (and trusted proxies): a client's own
      // X-Forwarded-For would give every request a rate-limit bucket of its own.
      ipAddress: { ipAddressHeaders: [CLIENT_IP_HEADER] },
    },
    rateLimit: {
      enabled: true,
      window: 60,
      max: 300,
      customRules: { "/sign-in/email": { window: 60, max: options.signInPerMinute } },
    },
    telemetry: { enabled: false },
    // better-auth colours its lines whenever the terminal type suggests colours, even into a file
    // or a pipe: only a terminal gets colour codes, a log file gets plain text.
    logger: { disableColors: !process.stdout.isTTY },
  } satisfies BetterAuthOptions;
}

export function createAuth(options: AuthOptions) {
  return betterAuth(authOptions(options));
}

export type Auth = ReturnType<typeof createAuth>;
