import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Gate, createGate } from "../../lib/sdk";
import { AdminClient, TEST_ADMIN_TOKEN } from "../helpers/admin-client";
import { type TestDatabase, createTestDatabase } from "../helpers/databases";
import { createTestProject } from "../helpers/fixtures";
import { type Framework, type ToolServer, nextFixtureEnv, nextToolServer, startToolServer } from "../helpers/http-tool-servers";
import { OPERATOR_ENV, OperatorClient, ROOT } from "../helpers/operator-client";
import { type TestServer, startServer } from "../helpers/server";
import { type TestGate, inProcessGate } from "../unit/sdk/helpers";
import { problemType } from "../helpers/problem-type";

type Backend = "in-process" | "http";

interface Answer {
  status: number;
  headers: Headers;
  body: Record<string, unknown>;
}

interface Served {
  db: TestDatabase;
  project: { projectId: string; apiKey: string };
  /** The refunds server the Next.js fixture routes forward executions to (it counts them). */
  refunds: ToolServer;
  server: TestServer;
}

let served: Promise<Served> | undefined;

/**
 * One `next start` for the whole file: the gate every "http" block talks to, and the app whose
 * test-only routes mount the middleware in real Next.js route handlers.
 */
function servedApp(): Promise<Served> {
  served ??= (async () => {
    const db = await createTestDatabase("sqlite");
    const project = await createTestProject(db.url);
    // Only its ungated /v1/direct is used: its gated routes' gate is never asked.
    const refunds = await startToolServer("express", createGate({ baseUrl: "http://127.0.0.1:1", apiKey: "ig_unused" }));
    // Operators and the admin API too: the resend test approves as an operator and sets a policy.
    const server = await startServer(db.url, { ...OPERATOR_ENV, IDEMGATE_ADMIN_TOKEN: TEST_ADMIN_TOKEN, ...nextFixtureEnv(refunds, project) });
    // Warm the routes the blocks use (a loaded machine's first request to a cold route module can
    // outlast a client's timeout): a begin and complete, and each fixture route once.
    await createGate({ baseUrl: server.baseUrl, apiKey: project.apiKey }).call({ tool: "warm-up", runId: randomUUID() }, () => null);
    for (const backend of ["in-process", "http"]) await (await fetch(`${server.baseUrl}/test-fixtures/http-tools/${backend}/v1/refunds`, { method: "POST" })).arrayBuffer();
    return { db, project, refunds, server };
  })();
  return served;
}

afterAll(async () => {
  if (!served) return;
  const { db, refunds, server } = await served;
  await server.stop();
  await refunds.close();
  await db.drop();
});

/**
 * The draft's behaviour table (draft-ietf-httpapi-idempotency-key-header), run against the
 * middleware mounted in Express, in Hono, as a Fetch route handler (a Next.js route module's
 * export, served by Hono's node server) and in real Next.js route handlers of this app's production
 * build, each backed by the gate in process and over HTTP.
 */
describe.each<[Framework, Backend]>([
  ["express", "in-process"],
  ["hono", "in-process"],
  ["fetch", "in-process"],
  ["express", "http"],
  ["hono", "http"],
  ["fetch", "http"],
  ["next", "in-process"],
  ["next", "http"],
])("Idempotency-Key middleware in %s, gate %s", (framework, backend) => {
  let inProcess: TestGate | undefined;
  let tool: ToolServer;

  beforeAll(async () => {
    if (framework === "next") {
      const app = await servedApp();
      tool = nextToolServer(app.server.baseUrl, backend, app.refunds);
      return;
    }
    let gate: Gate;
    if (backend === "in-process") {
      inProcess = await inProcessGate();
      gate = inProcess.gate;
    } else {
      const app = await servedApp();
      gate = createGate({ baseUrl: app.server.baseUrl, apiKey: app.project.apiKey, waitMs: 2_000 });
    }
    tool = await startToolServer(framework, gate);
  });

  afterAll(async () => {
    await tool?.close();
    await inProcess?.close();
  });

  async function post(path: string, body: unknown, headers: Record<string, string> = {}): Promise<Answer> {
    const res = await fetch(`${tool.baseUrl}${path}`, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: JSON.stringify(body) });
    return { status: res.status, headers: res.headers, body: (await res.json()) as Record<string, unknown> };
  }
  const refund = (key: string | null, body: Record<string, unknown>, path = "/v1/refunds") => post(path, body, key === null ? {} : { "idempotency-key": key });
  const newId = () => randomUUID().slice(0, 8);

  it("400: a gated route without Idempotency-Key, as problem+json; nothing runs", async () => {
    const id = newId();
    const res = await refund(null, { id, amount: 5 });
    expect(res.status).toBe(400);
    expect(res.headers.get("content-type")).toBe("application/problem+json");
    expect(res.body).toMatchObject({ type: problemType("idempotency-key-missing"), title: "Idempotency-Key is missing", status: 400 });
    expect((await refund('""', { id, amount: 5 })).status).toBe(400);
    expect(tool.executions.get(id)).toBeUndefined();
  });

  it("400: an Idempotency-Key that is not one sf-string (or bare key): two different keys, another structured type, a malformed string; nothing runs", async () => {
    const id = newId();
    for (const raw of [`"${randomUUID()}", "${randomUUID()}"`, "42", "?1", `"${randomUUID()}`]) {
      const res = await refund(raw, { id, amount: 5 });
      expect([raw, res.status, res.body.type]).toEqual([raw, 400, problemType("idempotency-key-invalid")]);
    }
    expect(tool.executions.get(id)).toBeUndefined();
    // The same key twice is that key.
    const key = randomUUID();
    expect((await refund(`"${key}", ${key}`, { id, amount: 5 })).status).toBe(201);
  });

  it("a completed key replays status, kept headers and body; the handler ran once", async () => {
    const id = newId();
    const key = `"${randomUUID()}"`;
    const first = await refund(key, { id, amount: 42 });
    expect(first.status).toBe(201);
    expect(first.headers.get("idempotent-replayed")).toBeNull();
    const again = await refund(key, { amount: 42, id });
    expect(again.status).toBe(201);
    expect(again.body).toEqual(first.body);
    expect(again.headers.get("x-refund-id")).toBe(first.headers.get("x-refund-id"));
    expect(again.headers.get("location")).toBe(`/v1/refunds/rf_${id}`);
    expect(again.headers.get("content-type")).toMatch(/^application\/json/);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(again.headers.get("set-cookie")).toBeNull();
    expect(tool.executions.get(id)).toBe(1);
    expect(first.body.key).toEqual(expect.any(String));
  });

  it.runIf(backend === "http" && framework !== "next")("Idemgate-Resend: after an operator approves, the completed key runs once more, under its next generation", async () => {
    const app = await servedApp();
    // One key sent four times: the loop detector would rightly block the run; not what is tested here.
    await new AdminClient(app.server.baseUrl, app.project.projectId).put("POST /v1/refunds", { loop: { enabled: false } });
    const id = newId();
    const key = randomUUID();
    const first = await refund(key, { id, amount: 7 });
    expect(first.status).toBe(201);
    const resend = { "idempotency-key": key, "idemgate-resend": "the bank bounced the first refund" };
    const asked = await post("/v1/refunds", { id, amount: 7 }, resend);
    expect(asked.status).toBe(409);
    expect(asked.body).toMatchObject({ type: problemType("resend-approval-required"), resendRequestId: expect.stringMatching(/^rr_/) });
    expect(tool.executions.get(id)).toBe(1);

    const root = await OperatorClient.signIn(app.server.baseUrl, ROOT.email, ROOT.password);
    await root.approve(app.project.projectId, asked.body.resendRequestId as string, "confirmed with the bank");
    const resent = await post("/v1/refunds", { id, amount: 7 }, resend);
    expect(resent.status).toBe(201);
    expect(resent.headers.get("idempotent-replayed")).toBeNull();
    expect(resent.body.key).toBe(`${String(first.body.key)}:g2`);
    expect(tool.executions.get(id)).toBe(2);
    const replayed = await refund(key, { id, amount: 7 });
    expect([replayed.headers.get("idempotent-replayed"), replayed.body.key]).toEqual(["true", resent.body.key]);
    expect(tool.executions.get(id)).toBe(2);
  });

  it("keys are the caller's: another caller's same key and payload runs as its own request, never replays the first caller's response", async () => {
    const id = newId();
    const key = randomUUID();
    const alice = await post("/v1/refunds", { id, amount: 9 }, { "idempotency-key": key, "x-caller": "alice" });
    expect(alice.status).toBe(201);
    const bob = await post("/v1/refunds", { id, amount: 9 }, { "idempotency-key": key, "x-caller": "bob" });
    expect(bob.status).toBe(201);
    expect(bob.headers.get("idempotent-replayed")).toBeNull();
    expect(bob.body.refundId).not.toBe(alice.body.refundId);
    expect(bob.body.key).not.toBe(alice.body.key);
    expect(tool.executions.get(id)).toBe(2);
    // Each caller's own retry still replays its own response, once.
    const aliceAgain = await post("/v1/refunds", { id, amount: 9 }, { "idempotency-key": key, "x-caller": "alice" });
    expect([aliceAgain.status, aliceAgain.headers.get("idempotent-replayed"), aliceAgain.body.refundId]).toEqual([201, "true", alice.body.refundId]);
    // No caller (an app that named none for this request) is a scope of its own too.
    const nobody = await post("/v1/refunds", { id, amount: 9 }, { "idempotency-key": key });
    expect(nobody.headers.get("idempotent-replayed")).toBeNull();
    expect(tool.executions.get(id)).toBe(3);
  });

  it("422: the same key with a different payload", async () => {
    const id = newId();
    const key = randomUUID();
    expect((await refund(key, { id, amount: 10 })).status).toBe(201);
    const changed = await refund(key, { id, amount: 11 });
    expect(changed.status).toBe(422);
    expect(changed.headers.get("content-type")).toBe("application/problem+json");
    expect(changed.body).toMatchObject({ type: problemType("idempotency-key-reused"), status: 422 });
    expect(tool.executions.get(id)).toBe(1);
  });

  it("422: bodies that differ only in a number a double cannot hold (an account past 2^53, a decimal past its precision); 1.0 is 1", async () => {
    const send = async (key: string, text: string) => {
      const res = await fetch(`${tool.baseUrl}/v1/refunds`, { method: "POST", headers: { "content-type": "application/json", "idempotency-key": key }, body: text });
      return { status: res.status, headers: res.headers, body: (await res.json()) as Record<string, unknown> };
    };
    const id = newId();
    const key = randomUUID();
    expect((await send(key, `{"id":"${id}","amount":1.0,"account":9007199254740993}`)).status).toBe(201);
    const other = await send(key, `{"id":"${id}","amount":1.0,"account":9007199254740992}`);
    expect([other.status, other.body.type]).toEqual([422, problemType("idempotency-key-reused")]);
    const same = await send(key, `{"account":9007199254740993.00,"id":"${id}","amount":1}`);
    expect([same.status, same.headers.get("idempotent-replayed")]).toEqual([201, "true"]);
    const precise = randomUUID();
    expect((await send(precise, `{"id":"${id}","amount":0.1}`)).status).toBe(201);
    expect((await send(precise, `{"id":"${id}","amount":0.10000000000000001}`)).status).toBe(422);
    expect(tool.executions.get(id)).toBe(2);
  });

  it("a replayed 401 keeps the WWW-Authenticate RFC 9110 requires with it, whatever keepHeaders says", async () => {
    const id = newId();
    const key = randomUUID();
    const first = await refund(key, { id, amount: 3, fail: 401, failTimes: 1 });
    expect([first.status, first.headers.get("www-authenticate")]).toEqual([401, 'Bearer realm="refunds"']);
    const again = await refund(key, { id, amount: 3, fail: 401, failTimes: 1 });
    expect([again.status, again.headers.get("idempotent-replayed"), again.headers.get("www-authenticate")]).toEqual([401, "true", 'Bearer realm="refunds"']);
    expect(tool.executions.get(id)).toBe(1);
  });

  it("409: a concurrent request with the same key while the first is processed", async () => {
    const id = newId();
    const key = randomUUID();
    const slow = refund(key, { id, amount: 1, delayMs: 1_500 });
    await expect.poll(() => tool.executions.get(id), { timeout: 30_000 }).toBe(1);
    const concurrent = await refund(key, { id, amount: 1, delayMs: 1_500 });
    expect(concurrent.status).toBe(409);
    expect(concurrent.headers.get("content-type")).toBe("application/problem+json");
    expect(concurrent.headers.get("retry-after")).toBe("1");
    expect((await slow).status).toBe(201);
    expect(tool.executions.get(id)).toBe(1);
  });

  it("50 concurrent duplicates on a latching route: one execution, fifty identical answers", async () => {
    const id = newId();
    const key = randomUUID();
    const answers = await Promise.all(Array.from({ length: 50 }, () => refund(key, { id, amount: 7, delayMs: 300 }, "/v1/latched")));
    expect(tool.executions.get(id)).toBe(1);
    expect(new Set(answers.map((a) => a.status))).toEqual(new Set([201]));
    expect(new Set(answers.map((a) => JSON.stringify(a.body))).size).toBe(1);
    expect(answers.filter((a) => a.headers.get("idempotent-replayed") === "true")).toHaveLength(49);
  });

  it("a 5xx is released: the retry with the same key executes and its success is kept", async () => {
    const id = newId();
    const key = randomUUID();
    const failed = await refund(key, { id, amount: 3, fail: 503 });
    expect(failed.status).toBe(503);
    expect(failed.headers.get("x-failure")).toBe("attempt-1");
    const retried = await refund(key, { id, amount: 3, fail: 503 });
    expect(retried.status).toBe(201);
    expect(tool.executions.get(id)).toBe(2);
    expect((await refund(key, { id, amount: 3, fail: 503 })).body).toEqual(retried.body);
    expect(tool.executions.get(id)).toBe(2);
  });

  it.each([408, 409, 429])("a %i is released like a 5xx", async (status) => {
    const id = newId();
    const key = randomUUID();
    expect((await refund(key, { id, amount: 3, fail: status })).status).toBe(status);
    expect((await refund(key, { id, amount: 3, fail: status })).status).toBe(201);
    expect(tool.executions.get(id)).toBe(2);
  });

  it("another 4xx is cached as permanent: replayed with its status, headers and body, not run again", async () => {
    const id = newId();
    const key = randomUUID();
    const rejected = await refund(key, { id, amount: -1, fail: 400, failTimes: 99 });
    expect(rejected.status).toBe(400);
    const again = await refund(key, { id, amount: -1, fail: 400, failTimes: 99 });
    expect(again.status).toBe(400);
    expect(again.body).toEqual(rejected.body);
    expect(again.headers.get("x-failure")).toBe("attempt-1");
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(tool.executions.get(id)).toBe(1);
  });

  it("the key is scoped to the route: the same key on another route is another request", async () => {
    const id = newId();
    const key = randomUUID();
    expect((await refund(key, { id, amount: 2 })).status).toBe(201);
    expect((await refund(key, { id, amount: 2 }, "/v1/latched")).status).toBe(201);
    expect(tool.executions.get(id)).toBe(2);
  });

  it("an agent runtime's Idemgate-Run-Id and Idemgate-Step-Id key the request without Idempotency-Key", async () => {
    const id = newId();
    const run = { "idemgate-run-id": `run_${id}`, "idemgate-step-id": "refund the order" };
    const first = await post("/v1/refunds", { id, amount: 9 }, run);
    const second = await post("/v1/refunds", { id, amount: 9 }, run);
    expect([first.status, second.status]).toEqual([201, 201]);
    expect(second.headers.get("idempotent-replayed")).toBe("true");
    expect(tool.executions.get(id)).toBe(1);
  });

  it("methods other than POST and PATCH pass through ungated", async () => {
    const res = await fetch(`${tool.baseUrl}/v1/refunds`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ list: [] });
  });
});

/**
 * The route's policy drives what the middleware keeps (the gate sends it on execute): the headers a
 * replay reproduces (policy keepHeaders), and for a route that never replays (here onDuplicate
 * refuse) a body passed through as the handler writes it, recorded as a success without it.
 */
describe.each<Framework>(["express", "hono", "fetch"])("the route's policy, middleware in %s", (framework) => {
  let refusing: TestGate;
  let keeping: TestGate;
  let refusingTool: ToolServer;
  let keepingTool: ToolServer;

  beforeAll(async () => {
    refusing = await inProcessGate({ policy: { onDuplicate: "refuse" } });
    keeping = await inProcessGate({ policy: { keepHeaders: ["x-refund-id"] } });
    refusingTool = await startToolServer(framework, refusing.gate);
    keepingTool = await startToolServer(framework, keeping.gate);
  });

  afterAll(async () => {
    await refusingTool?.close();
    await keepingTool?.close();
    await refusing?.close();
    await keeping?.close();
  });

  const send = (tool: ToolServer, path: string, key: string, body: unknown) =>
    fetch(`${tool.baseUrl}${path}`, { method: "POST", headers: { "content-type": "application/json", "idempotency-key": key }, body: JSON.stringify(body) });

  it("a route that never replays streams the body through as it is written and records the success", async () => {
    const id = randomUUID().slice(0, 8);
    const key = randomUUID();
    const res = await send(refusingTool, "/v1/stream", key, { id, amount: 1 });
    expect(res.status).toBe(200);
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    let text = "";
    // The handler is still holding its second line: what arrives now was not held back by the middleware.
    while (!text.includes("first\n")) {
      const chunk = await reader.read();
      if (chunk.done) break;
      text += decoder.decode(chunk.value, { stream: true });
    }
    expect(text).toBe("first\n");
    refusingTool.release(id);
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) text += decoder.decode(chunk.value, { stream: true });
    expect(text).toBe("first\nsecond\n");
    // Refused, not run again; the record says the request succeeded (a replaying route, its body unstored, would have recorded a failure).
    const again = await send(refusingTool, "/v1/stream", key, { id, amount: 1 });
    expect(again.status).toBe(409);
    expect(((await again.json()) as { detail: string }).detail).toMatch(/already processed \(succeeded/);
    expect(refusingTool.executions.get(id)).toBe(1);
  });

  it("a replay reproduces the headers the route's policy keeps, and no others", async () => {
    const id = randomUUID().slice(0, 8);
    const key = randomUUID();
    const first = await send(keepingTool, "/v1/refunds", key, { id, amount: 4 });
    expect(first.status).toBe(201);
    expect(first.headers.get("location")).toBe(`/v1/refunds/rf_${id}`);
    const body = await first.text();
    const again = await send(keepingTool, "/v1/refunds", key, { id, amount: 4 });
    expect(again.status).toBe(201);
    expect(await again.text()).toBe(body);
    expect(again.headers.get("x-refund-id")).toBe(first.headers.get("x-refund-id"));
    expect(again.headers.get("location")).toBeNull();
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(keepingTool.executions.get(id)).toBe(1);
  });
});
