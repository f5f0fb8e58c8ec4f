import { type BetterAuthOptions, betterAuth } from "better-auth";
import type { AuthDatabase } from "../store/connection/operator-db";
import { CLIENT_IP_HEADER } from "../http/client-address";
import { siteOrigins } from "./origin-check";

export interface AuthOptions {
  database: AuthDatabase;
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
 * an httpOnly SameSite=Lax cookie. Its camelCase fields map onto the snake_case tables that
 * prisma/schema.prisma declares; test/integration/operators-schema.test.ts proves they match.
 * Accounts are created by admins only: the sign-up endpoint is never routed (auth-handler.ts).
 */
export function authOptions(options: AuthOptions) {
  return {
    appName: "Idemgate",
    database: options.database,
    secret: options.secret,
    baseURL: options.baseURL,
    basePath: AUTH_BASE_PATH,
    // better-auth checks the Origin of sign-in and cookie-carrying requests against these: the
    // site the browser addressed, as our own operator routes do (origin-check.ts).
    trustedOrigins: async (request?: Request) => (request ? [...siteOrigins(request)] : []),
    emailAndPassword: { enabled: true, autoSignIn: false, minPasswordLength: 8, maxPasswordLength: 128 },
    user: {
      modelName: "users",
      fields: { emailVerified: "email_verified", createdAt: "created_at", updatedAt: "updated_at" },
      additionalFields: {
        // input: false — no request can set it; boot.ts grants it to the first admin.
        instanceAdmin: { type: "boolean", required: false, defaultValue: false, input: false, fieldName: "instance_admin" },
      },
    },
    session: {
      modelName: "sessions",
      fields: {
        expiresAt: "expires_at",
        createdAt: "created_at",
        updatedAt: "updated_at",
        ipAddress: "ip_address",
        userAgent: "user_agent",
        userId: "user_id",
      },
      // A working day, sliding: approvals are sensitive, an idle browser should not stay signed in for a week.
      expiresIn: 8 * 60 * 60,
      updateAge: 60 * 60,
    },
    account: {
      modelName: "accounts",
      fields: {
        accountId: "account_id",
        providerId: "provider_id",
        userId: "user_id",
        accessToken: "access_token",
        refreshToken: "refresh_token",
        idToken: "id_token",
        accessTokenExpiresAt: "access_token_expires_at",
        refreshTokenExpiresAt: "refresh_token_expires_at",
        createdAt: "created_at",
        updatedAt: "updated_at",
      },
    },
    verification: {
      modelName: "verifications",
      fields: { expiresAt: "expires_at", createdAt: "created_at", updatedAt: "updated_at" },
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
  } satisfies BetterAuthOptions;
}

export function createAuth(options: AuthOptions) {
  return betterAuth(authOptions(options));
}

export type Auth = ReturnType<typeof createAuth>;
