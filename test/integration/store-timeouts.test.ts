import Database from "better-sqlite3";
import pg from "pg";
import { afterEach, describe, expect, it } from "vitest";
import { TestClient } from "../helpers/client";
import { PROVIDERS, type TestDatabase, createTestDatabase } from "../helpers/databases";
import { createTestProject } from "../helpers/fixtures";
import { expectDecision, uniqueRun } from "../helpers/policy-fixtures";
import { type TestServer, startServer } from "../helpers/server";
import { waitFor } from "../helpers/storm-scenario";
import { OPERATOR_ENV, OperatorClient, ROOT } from "../helpers/operator-client";
import { sql } from "../helpers/sql";

/**
 * A stalled store must answer the retryable 503 while the stall lasts, not after it. Every request
 * here is sent while a lock is held, and the lock is released only after the answer came: a gate
 * that waits out the lock never answers, and the request's generous budget fails the test instead.
 */
const ANSWER_BUDGET_MS = 30_000;

/** An agent (its API key) or a signed-in operator (its session cookie and this site's Origin). */
function credentials(caller: TestClient | OperatorClient): Record<string, string> {
  if (caller instanceof OperatorClient) return { origin: caller.baseUrl, ...(caller.cookie ? { cookie: caller.cookie } : {}) };
  return { authorization: `Bearer ${caller.apiKey}` };
}

async function answered(caller: TestClient | OperatorClient, method: string, path: string, body?: unknown): Promise<{ status: number; code?: string; retryable?: boolean }> {
  const res = await fetch(`${caller.baseUrl}${path}`, {
    method,
    headers: { ...credentials(caller), ...(body ? { "content-type": "application/json" } : {}) },
    body: body ? JSON.stringify(body) : undefined,
    signal: AbortSignal.timeout(ANSWER_BUDGET_MS),
  }).catch((error: unknown) => {
    throw new Error(`${method} ${path}: no answer within ${ANSWER_BUDGET_MS} ms while the store was stalled (${String(error)})`);
  });
  const json = (await res.json()) as { error?: { code: string; retryable: boolean } };
  return { status: res.status, code: json.error?.code, retryable: json.error?.retryable };
}

const unavailable = { status: 503, code: "store_unavailable", retryable: true };

/** A second session holding ACCESS EXCLUSIVE on call_records inside an open transaction. */
function lockRecords(url: string): Promise<{ release(): Promise<void>; waiting(): Promise<number> }> {
  return lockTable(url, "call_records", "ACCESS EXCLUSIVE");
}

/** A second session holding `mode` on `table` inside an open transaction. */
async function lockTable(url: string, table: string, mode: "ACCESS EXCLUSIVE" | "EXCLUSIVE"): Promise<{ release(): Promise<void>; waiting(): Promise<number> }> {
  const locker = new pg.Client({ connectionString: url });
  await locker.connect();
  await locker.query("BEGIN");
  await locker.query(`LOCK TABLE ${table} IN ${mode} MODE`);
  return {
    release: async () => {
      await locker.query("ROLLBACK");
      await locker.end();
    },
    // Sessions of this database stuck behind a lock: the gate's pooled connections.
    waiting: async () =>
      Number((await locker.query("SELECT count(*) AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'")).rows[0].n),
  };
}

describe.skipIf(!PROVIDERS.includes("postgres"))("postgres: a held lock or an exhausted pool answers 503 store_unavailable, not a stall", () => {
  let db: TestDatabase | undefined;
  let server: TestServer | undefined;

  afterEach(async () => {
    await server?.stop();
    await db?.drop();
  });

  async function setup(env: Record<string, string> = {}) {
    db = await createTestDatabase("postgres");
    const project = await createTestProject(db.url);
    server = await startServer(db.url, env);
    const client = new TestClient(server.baseUrl, project.apiKey);
    const runId = uniqueRun("stall");
    const earlier = expectDecision(await client.begin({ tool: "charge", runId, stepId: "earlier", args: { step: "earlier" } }), "execute");
    return { client, runId, callId: earlier.callId, url: db.url };
  }

  it("a table lock held by another session: begin and GET /calls/{id} answer 503 under the default lock timeout", async () => {
    const { client, runId, callId, url } = await setup();
    const lock = await lockRecords(url);
    try {
      expect(await answered(client, "POST", "/api/v1/calls/begin", { tool: "charge", runId, stepId: "during", args: { step: "during" } })).toMatchObject(unavailable);
      expect(await answered(client, "GET", `/api/v1/calls/${callId}`)).toMatchObject(unavailable);
    } finally {
      await lock.release();
    }
    expectDecision(await client.begin({ tool: "charge", runId, stepId: "during", args: { step: "during" } }), "execute");
    expect((await client.status(callId)).status).toBe("in_progress");
  });

  it("every pooled connection busy: the next requests answer 503 once the pool-acquire timeout passes", async () => {
    // One connection, and lock waits longer than the test: the first begin pins the pool.
    const { client, runId, callId, url } = await setup({
      IDEMGATE_PG_POOL_SIZE: "1",
      IDEMGATE_PG_CONNECT_TIMEOUT_MS: "3000",
      IDEMGATE_PG_LOCK_TIMEOUT_MS: "120000",
      IDEMGATE_PG_STATEMENT_TIMEOUT_MS: "120000",
    });
    const lock = await lockRecords(url);
    let pinned: Promise<unknown> | undefined;
    try {
      pinned = client.begin({ tool: "charge", runId, stepId: "pinned", args: { step: "pinned" } }).catch((error: unknown) => error);
      await waitFor(async () => (await lock.waiting()) >= 1, 60_000, "the gate's only connection to wait on the lock");
      expect(await answered(client, "POST", "/api/v1/calls/begin", { tool: "charge", runId, stepId: "next", args: { step: "next" } })).toMatchObject(unavailable);
      expect(await answered(client, "GET", `/api/v1/calls/${callId}`)).toMatchObject(unavailable);
    } finally {
      await lock.release();
    }
    expect(await pinned).toMatchObject({ decision: "execute" });
    expectDecision(await client.begin({ tool: "charge", runId, stepId: "next", args: { step: "next" } }), "execute");
  });
});

describe.skipIf(!PROVIDERS.includes("postgres"))("postgres: an account store that cannot write answers 503, not a 400 about the input or a 500", () => {
  let db: TestDatabase | undefined;
  let server: TestServer | undefined;

  afterEach(async () => {
    await server?.stop();
    await db?.drop();
  });

  it("an admin adds a member while the accounts table takes no writes: 503 store_unavailable and no account; the retry adds it", async () => {
    db = await createTestDatabase("postgres");
    const project = await createTestProject(db.url);
    server = await startServer(db.url, OPERATOR_ENV);
    const root = await OperatorClient.signIn(server.baseUrl, ROOT.email, ROOT.password);
    const member = { email: `locked-${uniqueRun("m")}@idemgate.test`.toLowerCase(), role: "viewer" as const, password: "pw-locked-member-0001", name: "locked" };
    // EXCLUSIVE lets reads through (the session check, the email lookup) and holds the account's
    // INSERT until the operators' lock timeout: better-auth then answers "Failed to create user".
    const lock = await lockTable(db.url, "users", "EXCLUSIVE");
    try {
      expect(await answered(root, "POST", `/api/v1/operator/projects/${project.projectId}/members`, member)).toMatchObject(unavailable);
    } finally {
      await lock.release();
    }
    expect((await sql<{ n: number }>(db.url, "SELECT count(*)::int AS n FROM users WHERE email = $1", [member.email]))[0]!.n).toBe(0);

    expect((await root.addMember(project.projectId, member)).email).toBe(member.email);
    await OperatorClient.signIn(server.baseUrl, member.email, member.password);
  });

  it("a sign-in while the sessions table takes no writes: 503 store_unavailable, no session and no failure counted; the same sign-in then succeeds", async () => {
    db = await createTestDatabase("postgres");
    server = await startServer(db.url, OPERATOR_ENV);
    await OperatorClient.signIn(server.baseUrl, ROOT.email, ROOT.password);
    const sessions = async () => (await sql<{ n: number }>(db!.url, "SELECT count(*)::int AS n FROM sessions"))[0]!.n;
    const before = await sessions();
    // The password check reads the account; the session INSERT waits for the operators' lock timeout.
    const lock = await lockTable(db.url, "sessions", "EXCLUSIVE");
    const signIn = () =>
      fetch(`${server!.baseUrl}/api/auth/sign-in/email`, {
        method: "POST",
        headers: { "content-type": "application/json", origin: server!.baseUrl },
        body: JSON.stringify({ email: ROOT.email, password: ROOT.password }),
        signal: AbortSignal.timeout(ANSWER_BUDGET_MS),
      });
    try {
      for (let i = 0; i < 3; i++) {
        const res = await signIn();
        expect(res.status).toBe(503);
        expect(res.headers.get("retry-after")).toBe("1");
        expect(res.headers.getSetCookie()).toEqual([]);
        expect(((await res.json()) as { error: unknown }).error).toMatchObject({ code: "store_unavailable", retryable: true });
      }
    } finally {
      await lock.release();
    }
    expect(await sessions()).toBe(before);
    // Three failed tries were the store's, not wrong passwords: no backoff.
    expect((await sql<{ n: number }>(db.url, "SELECT count(*)::int AS n FROM sign_in_failures"))[0]!.n).toBe(0);
    const res = await signIn();
    expect(res.status).toBe(200);
    expect(await sessions()).toBe(before + 1);
  });
});

describe("sqlite: another process holding the write lock answers 503 after the busy timeout, and reads go on", () => {
  let db: TestDatabase | undefined;
  let server: TestServer | undefined;

  afterEach(async () => {
    await server?.stop();
    await db?.drop();
  });

  it("begin answers 503 while the lock is held; GET /calls/{id} still answers (WAL readers never wait)", async () => {
    db = await createTestDatabase("sqlite");
    const project = await createTestProject(db.url);
    server = await startServer(db.url);
    const client = new TestClient(server.baseUrl, project.apiKey);
    const runId = uniqueRun("busy");
    const earlier = expectDecision(await client.begin({ tool: "charge", runId, stepId: "earlier", args: { step: "earlier" } }), "execute");

    const locker = new Database(db.url.slice("file:".length));
    locker.exec("BEGIN IMMEDIATE");
    try {
      expect(await answered(client, "POST", "/api/v1/calls/begin", { tool: "charge", runId, stepId: "during", args: { step: "during" } })).toMatchObject(unavailable);
      expect(await answered(client, "GET", `/api/v1/calls/${earlier.callId}`)).toMatchObject({ status: 200 });
    } finally {
      locker.exec("ROLLBACK");
      locker.close();
    }
    expectDecision(await client.begin({ tool: "charge", runId, stepId: "during", args: { step: "during" } }), "execute");
  });
});
