import { randomUUID } from "node:crypto";
import Database from "better-sqlite3";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ErrorResponseSchema } from "../../lib/contract/v1";
import { PROVIDERS, type Provider, type TestDatabase, createTestDatabase } from "../helpers/databases";
import { createTestProject } from "../helpers/fixtures";
import { type TestServer, startServer } from "../helpers/server";
import { TestClient } from "../helpers/client";

/** What is in the tables a bad request must not touch, read straight from the database. */
interface Snapshot {
  records: string;
  recordCount: number;
  eventCount: number;
}

async function snapshot(db: TestDatabase): Promise<Snapshot> {
  const recordsSql = "SELECT * FROM call_records ORDER BY id";
  const eventsSql = "SELECT COUNT(*) AS n FROM events";
  if (db.provider === "sqlite") {
    const conn = new Database(db.url.slice("file:".length), { readonly: true, fileMustExist: true });
    try {
      const rows = conn.prepare(recordsSql).all();
      const { n } = conn.prepare(eventsSql).get() as { n: number };
      return { records: JSON.stringify(rows), recordCount: rows.length, eventCount: Number(n) };
    } finally {
      conn.close();
    }
  }
  const client = new pg.Client({ connectionString: db.url });
  await client.connect();
  try {
    const rows = (await client.query(recordsSql)).rows;
    const { n } = (await client.query(eventsSql)).rows[0] as { n: string };
    return { records: JSON.stringify(rows), recordCount: rows.length, eventCount: Number(n) };
  } finally {
    await client.end();
  }
}

interface Ctx {
  callId: string;
  otherProjectCallId: string;
}

interface Case {
  name: string;
  method?: "GET" | "POST";
  path?: (ctx: Ctx) => string;
  /** A string is sent as is; anything else as JSON. */
  body?: (ctx: Ctx) => unknown;
  /** Header overrides; `null` drops the header. */
  headers?: Record<string, string | null>;
  status: number;
  code: string;
  /** For invalid_input: the path of one of the zod issues. */
  issuePath?: (string | number)[];
  /** This error is recorded by design: one event appended, records unchanged. */
  writesEvent?: boolean;
  postgresSmoke?: boolean;
}

const BEGIN = () => "/api/v1/calls/begin";
const valid = { tool: "charge_card", runId: "run_bad", stepId: "charge", args: { amount: 1 } };
const MiB = 1024 * 1024;

const CASES: Case[] = [
  { name: "missing tool", body: () => ({ runId: "r" }), status: 400, code: "invalid_input", issuePath: ["tool"], postgresSmoke: true },
  { name: "missing runId", body: () => ({ tool: "t" }), status: 400, code: "invalid_input", issuePath: ["runId"] },
  { name: "tool is a number", body: () => ({ ...valid, tool: 5 }), status: 400, code: "invalid_input", issuePath: ["tool"] },
  { name: "empty tool", body: () => ({ ...valid, tool: "" }), status: 400, code: "invalid_input", issuePath: ["tool"] },
  { name: "waitMs is a string", body: () => ({ ...valid, waitMs: "x" }), status: 400, code: "invalid_input", issuePath: ["waitMs"] },
  { name: "waitMs above 10 000", body: () => ({ ...valid, waitMs: 20_000 }), status: 400, code: "invalid_input", issuePath: ["waitMs"] },
  { name: "unknown extra field (strict)", body: () => ({ ...valid, idempotencyKey: "k" }), status: 400, code: "invalid_input", issuePath: [] },
  { name: "body is a JSON array", body: () => [valid], status: 400, code: "invalid_input" },
  { name: "body > 1 MiB", body: () => ({ ...valid, args: { blob: "a".repeat(MiB + 10) } }), status: 413, code: "payload_too_large", postgresSmoke: true },
  { name: "non-JSON body", body: () => "{tool: charge_card", status: 400, code: "invalid_json" },
  { name: "empty body", body: () => "", status: 400, code: "invalid_json" },
  { name: "content-type text/plain", body: () => valid, headers: { "content-type": "text/plain" }, status: 415, code: "unsupported_media_type" },
  { name: "no Authorization header", body: () => valid, headers: { authorization: null }, status: 401, code: "unauthorized", postgresSmoke: true },
  { name: "bad key ig_nope", body: () => valid, headers: { authorization: "Bearer ig_nope" }, status: 401, code: "unauthorized" },
  { name: "key without Bearer", body: () => valid, headers: { authorization: "ig_nope" }, status: 401, code: "unauthorized" },
  {
    name: "complete: unknown callId",
    path: () => "/api/v1/calls/call_unknown/complete",
    body: () => ({ leaseToken: "t", outcome: "succeeded", result: 1 }),
    status: 404,
    code: "not_found",
  },
  {
    name: "heartbeat: unknown callId",
    path: () => "/api/v1/calls/call_unknown/heartbeat",
    body: () => ({ leaseToken: "t", extendSeconds: 5 }),
    status: 404,
    code: "not_found",
  },
  { name: "GET: unknown callId", method: "GET", path: () => "/api/v1/calls/call_unknown", status: 404, code: "not_found" },
  { name: "GET: callId too long", method: "GET", path: () => `/api/v1/calls/${"c".repeat(300)}`, status: 400, code: "invalid_input", issuePath: ["callId"] },
  {
    name: "complete: wrong lease token",
    path: (c) => `/api/v1/calls/${c.callId}/complete`,
    body: () => ({ leaseToken: "not-the-lease", outcome: "succeeded", result: 1 }),
    status: 409,
    code: "lease_lost",
    postgresSmoke: true,
  },
  {
    name: "heartbeat: extendSeconds 0",
    path: (c) => `/api/v1/calls/${c.callId}/heartbeat`,
    body: () => ({ leaseToken: "x", extendSeconds: 0 }),
    status: 400,
    code: "invalid_input",
    issuePath: ["extendSeconds"],
  },
  {
    name: "complete: outcome failed without error",
    path: (c) => `/api/v1/calls/${c.callId}/complete`,
    body: () => ({ leaseToken: "x", outcome: "failed" }),
    status: 400,
    code: "invalid_input",
    issuePath: ["error"],
  },
  {
    name: "complete: unknown outcome",
    path: (c) => `/api/v1/calls/${c.callId}/complete`,
    body: () => ({ leaseToken: "x", outcome: "maybe" }),
    status: 400,
    code: "invalid_input",
    issuePath: ["outcome"],
  },
  {
    name: "complete: another project's callId",
    path: (c) => `/api/v1/calls/${c.otherProjectCallId}/complete`,
    body: () => ({ leaseToken: "x", outcome: "succeeded", result: 1 }),
    status: 404,
    code: "not_found",
  },
  { name: "GET: another project's callId", method: "GET", path: (c) => `/api/v1/calls/${c.otherProjectCallId}`, status: 404, code: "not_found" },
];

function providerCases(provider: Provider): Case[] {
  return provider === "sqlite" ? CASES : CASES.filter((c) => c.postgresSmoke);
}

describe.each(PROVIDERS)("%s: bad input is refused with the documented error and writes nothing", (provider) => {
  let db: TestDatabase;
  let server: TestServer;
  let apiKey: string;
  const ctx: Ctx = { callId: "", otherProjectCallId: "" };

  beforeAll(async () => {
    db = await createTestDatabase(provider);
    const project = await createTestProject(db.url, "project A");
    const other = await createTestProject(db.url, "project B");
    server = await startServer(db.url);
    apiKey = project.apiKey;
    const mine = await new TestClient(server.baseUrl, project.apiKey).begin(valid);
    const theirs = await new TestClient(server.baseUrl, other.apiKey).begin(valid);
    if (mine.decision !== "execute" || theirs.decision !== "execute") throw new Error("setup: expected two executes");
    ctx.callId = mine.callId;
    ctx.otherProjectCallId = theirs.callId;
  });

  afterAll(async () => {
    await server?.stop();
    await db?.drop();
  });

  it.each(providerCases(provider))("$name → $status $code", async (c) => {
    const method = c.method ?? "POST";
    const raw = c.body?.(ctx);
    const body = raw === undefined ? undefined : typeof raw === "string" ? raw : JSON.stringify(raw);
    const headers: Record<string, string> = {
      authorization: `Bearer ${apiKey}`,
      ...(body !== undefined ? { "content-type": "application/json" } : {}),
    };
    for (const [name, value] of Object.entries(c.headers ?? {})) {
      if (value === null) delete headers[name];
      else headers[name] = value;
    }

    const before = await snapshot(db);
    expect(before.recordCount).toBeGreaterThanOrEqual(2); // the snapshot really reads the server's database
    const res = await fetch(`${server.baseUrl}${(c.path ?? BEGIN)(ctx)}`, { method, headers, body });
    const json: unknown = await res.json();
    const after = await snapshot(db);

    expect(res.status, JSON.stringify(json)).toBe(c.status);
    const { error } = ErrorResponseSchema.parse(json);
    expect(error.code).toBe(c.code);
    expect(typeof error.retryable).toBe("boolean");
    expect(error.retryable).toBe(false);
    expect(error.message.length).toBeGreaterThan(0);

    const requestId = res.headers.get("x-request-id");
    expect(requestId).toBeTruthy();
    expect(error.requestId).toBe(requestId);

    if (c.code === "invalid_input") {
      expect(error.issues?.length).toBeGreaterThan(0);
      for (const issue of error.issues!) expect(Array.isArray(issue.path)).toBe(true);
      if (c.issuePath) expect(error.issues!.map((i) => i.path)).toContainEqual(c.issuePath);
    } else {
      expect(error.issues).toBeUndefined();
    }

    expect(after.records).toBe(before.records);
    expect(after.recordCount).toBe(before.recordCount);
    expect(after.eventCount).toBe(before.eventCount + (c.writesEvent ? 1 : 0));
  });

  it("echoes a caller-supplied x-request-id in the header and the error body", async () => {
    const requestId = `req_${randomUUID()}`;
    const res = await fetch(`${server.baseUrl}/api/v1/calls/begin`, {
      method: "POST",
      headers: { authorization: `Bearer ${apiKey}`, "content-type": "application/json", "x-request-id": requestId },
      body: JSON.stringify({ runId: "r" }),
    });
    expect(res.status).toBe(400);
    expect(res.headers.get("x-request-id")).toBe(requestId);
    expect(ErrorResponseSchema.parse(await res.json()).error.requestId).toBe(requestId);
  });

  it.runIf(provider === "sqlite")("a > 1 MiB body streamed without content-length is refused with 413 and writes nothing", async () => {
    const before = await snapshot(db);
    const payload = new TextEncoder().encode(JSON.stringify({ ...valid, args: { blob: "b".repeat(MiB + 10) } }));
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let i = 0; i < payload.length; i += 64 * 1024) controller.enqueue(payload.subarray(i, i + 64 * 1024));
        controller.close();
      },
    });
    const res = await fetch(`${server.baseUrl}/api/v1/calls/begin`, {
      method: "POST",
      headers: { authorization: `Bearer ${apiKey}`, "content-type": "application/json" },
      body: stream,
      duplex: "half",
    } as RequestInit);
    expect(res.status).toBe(413);
    expect(ErrorResponseSchema.parse(await res.json()).error).toMatchObject({ code: "payload_too_large", retryable: false });
    expect(await snapshot(db)).toEqual(before);
  });
});
