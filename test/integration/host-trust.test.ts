import http from "node:http";
import os from "node:os";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEMO_ADMIN_EMAIL, DEMO_ADMIN_PASSWORD } from "../../lib/auth/demo-password";
import { PROVIDERS, type TestDatabase, createTestDatabase } from "../helpers/databases";
import { type TestServer, startServer } from "../helpers/server";

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/**
 * A request as a rebound browser sends it: from loopback (the attacker's name now resolves to
 * 127.0.0.1), with the attacker's name in `Host` and a matching `Origin`. Raw node:http, because
 * fetch does not let a caller choose `Host`.
 */
function send(server: TestServer, method: string, path: string, host: string, { body, headers = {} }: { body?: unknown; headers?: Record<string, string> } = {}): Promise<Answer> {
  const { port } = new URL(server.baseUrl);
  const payload = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: "127.0.0.1",
        port,
        method,
        path,
        agent: false,
        // An empty string here means "send no Host at all".
        setHost: false,
        headers: {
          ...(host ? { host } : {}),
          origin: `http://${host}`,
          ...(payload !== undefined ? { "content-type": "application/json", "content-length": String(Buffer.byteLength(payload)) } : {}),
          ...headers,
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (chunk: Buffer) => chunks.push(chunk));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString("utf8") }));
        res.on("error", reject);
      },
    );
    req.on("error", reject);
    req.end(payload);
  });
}

/** An upgrade request (a WebSocket handshake) with a foreign Host: refused on the socket. */
function upgrade(server: TestServer, host: string): Promise<string> {
  const { port } = new URL(server.baseUrl);
  return new Promise((resolve, reject) => {
    const req = http.request({ host: "127.0.0.1", port, path: "/", agent: false, headers: { host, origin: `http://${host}`, connection: "Upgrade", upgrade: "websocket", "sec-websocket-version": "13", "sec-websocket-key": "dGhlIHNhbXBsZSBub25jZQ==" } });
    req.on("response", (res) => resolve(String(res.statusCode)));
    req.on("upgrade", () => resolve("upgraded"));
    req.on("error", reject);
    req.end();
  });
}

/** A non-loopback address of this machine, if it has one (a listener on all interfaces is reached by it). */
function ownAddress(): string | null {
  const infos = Object.values(os.networkInterfaces()).flat();
  return infos.find((info) => info && !info.internal && info.family === "IPv4")?.address ?? null;
}

/** Issue #43 §1: a page that rebinds its name to 127.0.0.1 gets nothing from a default install. */
describe.each(PROVIDERS)("host trust (DNS rebinding) on %s", (provider) => {
  let db: TestDatabase;
  let server: TestServer;
  let port: string;
  const foreign = () => `rebind.attacker.example:${port}`;

  beforeAll(async () => {
    db = await createTestDatabase(provider);
    server = await startServer(db.url, { IDEMGATE_SEED_DEMO: "true", IDEMGATE_ALLOWED_HOSTS: "gate.internal.test,.corp.test", IDEMGATE_SIGN_IN_RATE_LIMIT: "100000" });
    port = new URL(server.baseUrl).port;
  });
  afterAll(async () => {
    await server?.stop();
    await db?.drop();
  });

  it("the demo sign-in from loopback under a foreign Host is refused, sets no cookie, and creates no session", async () => {
    const res = await send(server, "POST", "/api/auth/sign-in/email", foreign(), { body: { email: DEMO_ADMIN_EMAIL, password: DEMO_ADMIN_PASSWORD } });
    expect(res.status).toBe(403);
    expect(res.headers["set-cookie"]).toBeUndefined();
    expect(JSON.parse(res.body).error.message).toMatch(/does not answer for host/);
    // The same request under the server's own name signs in: the refusal was the Host, nothing else.
    const local = await send(server, "POST", "/api/auth/sign-in/email", `localhost:${port}`, { body: { email: DEMO_ADMIN_EMAIL, password: DEMO_ADMIN_PASSWORD } });
    expect(local.status).toBe(200);
    expect(local.headers["set-cookie"]?.join(";")).toMatch(/session_token/);
  });

  it("every door refuses a foreign Host before anything runs: pages, operator, admin and agent APIs, gateways, metrics, upgrades", async () => {
    const local = await send(server, "POST", "/api/auth/sign-in/email", `127.0.0.1:${port}`, { body: { email: DEMO_ADMIN_EMAIL, password: DEMO_ADMIN_PASSWORD } });
    const cookie = (local.headers["set-cookie"] ?? []).map((c) => c.split(";")[0]).join("; ");
    expect(cookie).toMatch(/session_token/);
    // A valid session cookie does not help: the browser of a signed-in operator sends it to the rebound name too.
    const withCookie = { headers: { cookie } };
    // The demo admin is an instance admin: the seeded demo project is theirs to change.
    const projectId = "proj_demo";
    const keysPath = `/api/v1/operator/projects/${projectId}/api-keys`;
    const doors: Array<[string, string, unknown?]> = [
      ["GET", "/"],
      ["GET", "/sign-in"],
      ["GET", "/calls"],
      ["GET", "/api/v1/operator/me"],
      ["GET", keysPath],
      ["POST", keysPath, { name: "rebound" }],
      ["GET", `/api/v1/admin/projects/${projectId}`],
      ["POST", "/api/v1/calls/begin", { runId: "r1", tool: "charge_card", args: {} }],
      ["GET", "/api/v1/openapi.json"],
      ["POST", "/mcp/shop", { jsonrpc: "2.0", id: 1, method: "initialize", params: {} }],
      ["POST", "/gw/billing/charges", { amount: 1 }],
      ["GET", "/api/metrics"],
      ["GET", "/api/livez"],
    ];
    for (const [method, path, body] of doors) {
      const res = await send(server, method, path, foreign(), { body, ...withCookie });
      expect(res.status, `${method} ${path}`).toBe(403);
      expect(res.headers["set-cookie"], `${method} ${path}`).toBeUndefined();
    }
    expect(await upgrade(server, foreign())).toBe("403");
    // Nothing was created by the refused POST.
    const keys = await send(server, "GET", keysPath, `localhost:${port}`, withCookie);
    expect(keys.status).toBe(200);
    expect(keys.body).not.toContain("rebound");
  });

  it("a missing or malformed Host is refused; the names the server answers for are served", async () => {
    for (const host of ["", "evil.example@localhost", "localhost.attacker.example", "127.0.0.1.nip.io", "[::1"]) {
      // Node itself answers 400 to a request with no Host (HTTP/1.1 requires one); any other, 403.
      expect((await send(server, "GET", "/api/livez", host)).status, JSON.stringify(host)).toBe(host === "" ? 400 : 403);
    }
    const served = [`localhost:${port}`, `127.0.0.1:${port}`, `LOCALHOST:${port}`, `app.localhost:${port}`, `gate.internal.test:${port}`, `corp.test`, `a.b.corp.test:${port}`];
    const own = ownAddress();
    if (own) served.push(`${own}:${port}`);
    for (const host of served) expect((await send(server, "GET", "/api/livez", host)).status, host).toBe(200);
  });

  it("the demo password needs a loopback Host too: an allowed public name from loopback (a proxy forwarding others) is refused", async () => {
    const res = await send(server, "POST", "/api/auth/sign-in/email", `gate.internal.test:${port}`, { body: { email: DEMO_ADMIN_EMAIL, password: DEMO_ADMIN_PASSWORD } });
    expect(res.status).toBe(403);
    expect(JSON.parse(res.body).message).toMatch(/only from this machine/);
    expect(res.headers["set-cookie"]).toBeUndefined();
  });
});
