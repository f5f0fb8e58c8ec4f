import { randomBytes } from "node:crypto";
import Database from "better-sqlite3";
import pg from "pg";
import type { z } from "zod";
import {
  ApiKeyListSchema,
  AuditListSchema,
  CreatedApiKeySchema,
  MemberSchema,
  OperatorResendRequestSchema,
  ResendListSchema,
} from "../../lib/contract/operator";
import { ResendRequestSchema } from "../../lib/contract/resends";
import { ErrorResponseSchema } from "../../lib/contract/v1";
import { parseDatabaseUrl } from "../../lib/store/connection/database-url";
import type { TestClient } from "./client";
import { fetchRetryingResets } from "./reset-retry";

/** The instance admin every operator test server starts with (ADMIN_EMAIL / ADMIN_PASSWORD). */
export const ROOT = { email: "root@idemgate.test", password: "root-password-0001" };

/** Server env for operator tests: a bootstrapped admin, a fixed secret, sign-in not rate limited. */
export const OPERATOR_ENV: Record<string, string> = {
  ADMIN_EMAIL: ROOT.email,
  ADMIN_PASSWORD: ROOT.password,
  BETTER_AUTH_SECRET: "test-secret-0123456789abcdef0123456789abcdef",
  IDEMGATE_SIGN_IN_RATE_LIMIT: "100000",
};

export type Role = "viewer" | "operator" | "admin";

/** A browser's sign-in POST, answered as is (status, Set-Cookie): `headers` adds or overrides. */
export function postSignIn(baseUrl: string, email: string, password: string, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${baseUrl}/api/auth/sign-in/email`, {
    method: "POST",
    headers: { "content-type": "application/json", origin: baseUrl, ...headers },
    body: JSON.stringify({ email, password }),
  });
}

/**
 * An operator's browser over real HTTP: the session cookie from sign-in, and the Origin header a
 * browser sends. Answers are parsed with the contract's schemas.
 */
export class OperatorClient {
  constructor(
    readonly baseUrl: string,
    readonly cookie: string | null,
    readonly email = "(none)",
  ) {}

  static async signIn(baseUrl: string, email: string, password: string): Promise<OperatorClient> {
    const res = await postSignIn(baseUrl, email, password);
    if (!res.ok) throw new Error(`sign-in of ${email} failed: ${res.status} ${await res.text()}`);
    const cookie = res.headers.getSetCookie().map((c) => c.split(";")[0]!).join("; ");
    return new OperatorClient(baseUrl, cookie, email);
  }

  raw(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Response> {
    return fetchRetryingResets(`${this.baseUrl}${path}`, {
      method,
      headers: {
        origin: this.baseUrl,
        ...(this.cookie ? { cookie: this.cookie } : {}),
        ...(body !== undefined ? { "content-type": "application/json" } : {}),
        ...headers,
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  }

  async call<S extends z.ZodType>(schema: S, method: string, path: string, body?: unknown): Promise<z.infer<S>> {
    const res = await this.raw(method, path, body);
    const json = await res.json();
    if (!res.ok) throw new Error(`HTTP ${res.status} ${method} ${path}: ${JSON.stringify(ErrorResponseSchema.parse(json))}`);
    return schema.parse(json);
  }

  async expectError(method: string, path: string, body?: unknown, headers?: Record<string, string>) {
    const res = await this.raw(method, path, body, headers);
    return { status: res.status, body: ErrorResponseSchema.parse(await res.json()) };
  }

  p(projectId: string, rest = ""): string {
    return `/api/v1/operator/projects/${encodeURIComponent(projectId)}${rest}`;
  }

  addMember(projectId: string, body: { email: string; role: Role; password?: string; name?: string }) {
    return this.call(MemberSchema, "POST", this.p(projectId, "/members"), body);
  }

  requestResend(projectId: string, callId: string, reason = "customer says it never arrived") {
    return this.call(OperatorResendRequestSchema, "POST", this.p(projectId, "/resend-requests"), { callId, reason });
  }

  getResend(projectId: string, requestId: string) {
    return this.call(OperatorResendRequestSchema, "GET", this.p(projectId, `/resend-requests/${requestId}`));
  }

  listResends(projectId: string, status?: string) {
    return this.call(ResendListSchema, "GET", this.p(projectId, `/resend-requests${status ? `?status=${status}` : ""}`));
  }

  approve(projectId: string, requestId: string, note = "checked with the customer", ttlSeconds?: number) {
    return this.call(OperatorResendRequestSchema, "POST", this.p(projectId, `/resend-requests/${requestId}/approve`), { note, ttlSeconds });
  }

  deny(projectId: string, requestId: string, note = "no") {
    return this.call(OperatorResendRequestSchema, "POST", this.p(projectId, `/resend-requests/${requestId}/deny`), { note });
  }

  audit(projectId: string) {
    return this.call(AuditListSchema, "GET", this.p(projectId, "/audit?limit=500"));
  }

  apiKeys(projectId: string) {
    return this.call(ApiKeyListSchema, "GET", this.p(projectId, "/api-keys"));
  }

  createApiKey(projectId: string, name: string) {
    return this.call(CreatedApiKeySchema, "POST", this.p(projectId, "/api-keys"), { name });
  }
}

/** A new account with `role` in the project, created by an admin over the API, then signed in. */
export async function createOperator(admin: OperatorClient, projectId: string, role: Role, label: string = role): Promise<OperatorClient> {
  const email = `${label}-${randomBytes(4).toString("hex")}@idemgate.test`;
  const password = `pw-${randomBytes(8).toString("hex")}`;
  await admin.addMember(projectId, { email, role, password, name: label });
  return OperatorClient.signIn(admin.baseUrl, email, password);
}

/** The agent side of a resend: ask, then read the request (which mints the token once). */
export async function agentAsk(agent: TestClient, callId: string, reason = "the email bounced") {
  const res = await agent.raw("POST", `/api/v1/calls/${callId}/resend`, { reason });
  if (!res.ok) throw new Error(`resend ask failed: ${res.status} ${await res.text()}`);
  return ResendRequestSchema.parse(await res.json());
}

export async function agentRead(agent: TestClient, requestId: string) {
  const res = await agent.raw("GET", `/api/v1/resend-requests/${requestId}`);
  if (!res.ok) throw new Error(`resend read failed: ${res.status} ${await res.text()}`);
  return ResendRequestSchema.parse(await res.json());
}

/** Runs SQL straight against the test database (to prove what the API cannot do). */
export async function rawSql(databaseUrl: string, sql: string): Promise<void> {
  const target = parseDatabaseUrl(databaseUrl);
  if (target.provider === "sqlite") {
    const db = new Database(target.file);
    try {
      db.exec(sql);
    } finally {
      db.close();
    }
    return;
  }
  const client = new pg.Client({ host: target.host, port: target.port, user: target.user, database: target.database });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}
