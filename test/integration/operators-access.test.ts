import { readFileSync, readdirSync, statSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MeSchema } from "../../lib/contract/operator";
import { PROVIDERS } from "../helpers/databases";
import { OperatorClient, ROOT, type Role, agentAsk, createOperator } from "../helpers/operator-client";
import { runOnce, uniqueRun, uniqueTool } from "../helpers/policy-fixtures";
import { sharedServer } from "../helpers/shared-server";
import { type TwoProjects, twoProjectsOnSharedServer } from "../helpers/two-projects";

const OPERATOR_DIR = path.resolve(import.meta.dirname, "../../app/api/v1/operator");

/**
 * The minimum role of every operator route and method. The first test fails when a route file
 * under app/api/v1/operator is not listed here, so a new route cannot skip these checks.
 */
const ACCESS: Record<string, "signedIn" | Role> = {
  "GET me": "signedIn",
  "GET projects/[projectId]/resend-requests": "viewer",
  "POST projects/[projectId]/resend-requests": "operator",
  "GET projects/[projectId]/resend-requests/[requestId]": "viewer",
  "POST projects/[projectId]/resend-requests/[requestId]/approve": "operator",
  "POST projects/[projectId]/resend-requests/[requestId]/deny": "operator",
  "GET projects/[projectId]/calls/[callId]": "viewer",
  "POST projects/[projectId]/calls/[callId]/evict": "operator",
  "POST projects/[projectId]/calls/[callId]/resolve": "operator",
  "GET projects/[projectId]/api-keys": "admin",
  "POST projects/[projectId]/api-keys": "admin",
  "POST projects/[projectId]/api-keys/[keyId]/revoke": "admin",
  "GET projects/[projectId]/members": "admin",
  "POST projects/[projectId]/members": "admin",
  "PUT projects/[projectId]/members/[userId]": "admin",
  "DELETE projects/[projectId]/members/[userId]": "admin",
  "GET projects/[projectId]/audit": "viewer",
  "GET projects/[projectId]/audit/export": "viewer",
  "GET projects/[projectId]/calls/export": "viewer",
  "GET projects/[projectId]/calls": "viewer",
  "GET projects/[projectId]/calls/[callId]/events": "viewer",
  "GET projects/[projectId]/runs": "viewer",
  "GET projects/[projectId]/runs/[runId]": "viewer",
  "GET projects/[projectId]/stats/dedup": "viewer",
  "GET projects/[projectId]/stats/timeseries": "viewer",
  "GET projects/[projectId]/stats/top-runs": "viewer",
  "GET projects/[projectId]/stats/shadow": "viewer",
  "GET projects/[projectId]/stats/storms": "viewer",
  "GET projects/[projectId]/storms": "viewer",
  "GET projects/[projectId]/storms/[stormId]": "viewer",
  "GET projects/[projectId]/upstreams": "admin",
  "POST projects/[projectId]/upstreams": "admin",
  "GET projects/[projectId]/upstreams/[upstreamId]": "admin",
  "PATCH projects/[projectId]/upstreams/[upstreamId]": "admin",
  "DELETE projects/[projectId]/upstreams/[upstreamId]": "admin",
  "GET projects/[projectId]/mcp-tools": "admin",
  "GET projects/[projectId]/outbound-allowlist": "admin",
  "POST projects/[projectId]/outbound-allowlist": "admin",
  "DELETE projects/[projectId]/outbound-allowlist/[entryId]": "admin",
  "GET projects/[projectId]/alerts": "admin",
  "POST projects/[projectId]/alerts/channels": "admin",
  "DELETE projects/[projectId]/alerts/channels/[channelId]": "admin",
  "POST projects/[projectId]/alerts/channels/[channelId]/test": "admin",
  "POST projects/[projectId]/alerts/rules": "admin",
  "DELETE projects/[projectId]/alerts/rules/[ruleId]": "admin",
  "GET projects/[projectId]/alerts/deliveries": "admin",
  "GET projects/[projectId]/previews": "viewer",
  "POST projects/[projectId]/previews/[previewId]/approve": "operator",
  "POST projects/[projectId]/previews/[previewId]/deny": "operator",
  "POST projects/[projectId]/runs/[runId]/abort": "operator",
  "GET projects/[projectId]/runs/[runId]/budget": "viewer",
  "POST projects/[projectId]/runs/[runId]/budget": "operator",
  "GET projects/[projectId]/runs/[runId]/compensation": "viewer",
  "POST projects/[projectId]/runs/[runId]/compensations/[callId]/resolve": "operator",
  "POST projects/[projectId]/runs/[runId]/compensations/[callId]/retry": "operator",
  "GET projects/[projectId]/queue": "viewer",
  "GET projects/[projectId]/decisions": "viewer",
  "GET projects/[projectId]/tools/[tool]/figures": "viewer",
};

/** Every `route.ts` under the operator API, with the HTTP methods it exports. */
function operatorRoutes(): { route: string; method: string }[] {
  const found: { route: string; method: string }[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const full = path.join(dir, name);
      if (statSync(full).isDirectory()) walk(full);
      else if (name === "route.ts") {
        const route = path.relative(OPERATOR_DIR, dir).split(path.sep).join("/");
        for (const match of readFileSync(full, "utf8").matchAll(/export (?:const|async function|function) (GET|POST|PUT|PATCH|DELETE)\b/g)) {
          found.push({ route, method: match[1]! });
        }
      }
    }
  };
  walk(OPERATOR_DIR);
  return found;
}

const urlOf = (route: string, projectId: string) =>
  `/api/v1/operator/${route.replace("[projectId]", projectId).replace(/\[(\w+)\]/g, "missing_$1")}`;

const BELOW: Record<Role, Role | null> = { viewer: null, operator: "viewer", admin: "operator" };

describe("the operator route table", () => {
  it("lists every route file and method under app/api/v1/operator, and nothing else", () => {
    const found = operatorRoutes().map(({ route, method }) => `${method} ${route}`).sort();
    expect(found).toEqual(Object.keys(ACCESS).sort());
  });
});

describe("the operator API contract", () => {
  it("documents every operator route and the agent's resend endpoints in /api/v1/openapi.json", async () => {
    const server = await sharedServer("sqlite");
    const doc = (await (await fetch(`${server.baseUrl}/api/v1/openapi.json`)).json()) as { paths: Record<string, Record<string, unknown>> };
    for (const { route, method } of operatorRoutes()) {
      const documented = `/api/v1/operator/${route.replace(/\[(\w+)\]/g, "{$1}")}`;
      expect(doc.paths[documented], `${method} ${documented}`).toHaveProperty(method.toLowerCase());
    }
    expect(doc.paths["/api/v1/calls/{callId}/resend"]).toHaveProperty("post");
    expect(doc.paths["/api/v1/resend-requests/{requestId}"]).toHaveProperty("get");
    const begin = doc.paths["/api/v1/calls/begin"]!.post as { responses: Record<string, unknown> };
    expect(Object.keys(begin.responses)).toEqual(expect.arrayContaining(["403", "409", "410"]));
  });
});

describe.each(PROVIDERS)("%s: operator access", (provider) => {
  let world: TwoProjects;
  const members: Partial<Record<Role, OperatorClient>> = {};

  beforeAll(async () => {
    world = await twoProjectsOnSharedServer(provider);
    for (const role of ["viewer", "operator", "admin"] as const) members[role] = await createOperator(world.root, world.projectA, role);
  });

  afterAll(async () => {
    await world?.stop();
  });

  it("sign-in sets an httpOnly SameSite session cookie; bad passwords, sign-up and signed-out sessions get nothing", async () => {
    const res = await fetch(`${world.server.baseUrl}/api/auth/sign-in/email`, {
      method: "POST",
      headers: { "content-type": "application/json", origin: world.server.baseUrl },
      body: JSON.stringify({ email: ROOT.email, password: ROOT.password }),
    });
    expect(res.status).toBe(200);
    const cookie = res.headers.getSetCookie().find((c) => c.includes("session_token"))!;
    expect(cookie).toMatch(/HttpOnly/i);
    expect(cookie).toMatch(/SameSite=Lax/i);

    const wrong = await fetch(`${world.server.baseUrl}/api/auth/sign-in/email`, {
      method: "POST",
      headers: { "content-type": "application/json", origin: world.server.baseUrl },
      body: JSON.stringify({ email: ROOT.email, password: "not-the-password" }),
    });
    expect(wrong.status).toBe(401);
    const signUp = await fetch(`${world.server.baseUrl}/api/auth/sign-up/email`, {
      method: "POST",
      headers: { "content-type": "application/json", origin: world.server.baseUrl },
      body: JSON.stringify({ email: "intruder@idemgate.test", password: "intruder-password", name: "x" }),
    });
    expect(signUp.status).toBe(404);

    const session = await OperatorClient.signIn(world.server.baseUrl, ROOT.email, ROOT.password);
    expect((await session.call(MeSchema, "GET", "/api/v1/operator/me")).user).toMatchObject({ email: ROOT.email, instanceAdmin: true });
    expect((await session.raw("POST", "/api/auth/sign-out", {})).status).toBe(200);
    expect((await session.expectError("GET", "/api/v1/operator/me")).status).toBe(401);
  });

  it("sign-in and operator changes trust the site the browser addressed (Host), not the server's listen address", async () => {
    // As behind a proxy that keeps the Host header: Next.js builds req.url from its own address.
    const host = `localhost:${new URL(world.server.baseUrl).port}`;
    const res = await fetch(`${world.server.baseUrl}/api/auth/sign-in/email`, {
      method: "POST",
      headers: { host, origin: `http://${host}`, "content-type": "application/json" },
      body: JSON.stringify({ email: ROOT.email, password: ROOT.password }),
    });
    expect(res.status, await res.clone().text()).toBe(200);
    const cookie = res.headers.getSetCookie().map((c) => c.split(";")[0]!).join("; ");
    const viaHost = await fetch(`${world.server.baseUrl}${world.root.p(world.projectA, "/api-keys")}`, {
      method: "POST",
      headers: { host, origin: `http://${host}`, cookie, "content-type": "application/json" },
      body: JSON.stringify({ name: "via host" }),
    });
    expect(viaHost.status).toBe(200);
  });

  it("the sign-in page shows the form, and once signed in, who you are with a sign-out button", async () => {
    const anonymous = await fetch(`${world.server.baseUrl}/sign-in`);
    expect(anonymous.status).toBe(200);
    const form = await anonymous.text();
    expect(form).toContain("Operator sign-in");
    expect(form).toMatch(/type="password"/);
    const viewer = members.viewer!;
    const page = await (await fetch(`${world.server.baseUrl}/sign-in`, { headers: { cookie: viewer.cookie! } })).text();
    expect(page).toContain(viewer.email);
    expect(page).toContain(world.projectA);
    expect(page).toContain("Sign out");
  });

  it("every operator route answers 401 without a session, and to an agent's API key", async () => {
    const anonymous = new OperatorClient(world.server.baseUrl, null);
    for (const { route, method } of operatorRoutes()) {
      const url = urlOf(route, world.projectA);
      const body = method === "GET" || method === "DELETE" ? undefined : {};
      expect((await anonymous.expectError(method, url, body)).status, `${method} ${route}`).toBe(401);
      const withKey = await world.agentA.expectError(method, url, body, { origin: world.server.baseUrl });
      expect(withKey.status, `${method} ${route} with an API key`).toBe(401);
    }
  });

  it("every role-gated route answers 403 to the role below, 404 to a non-member, and lets the role itself through", async () => {
    const outsider = await createOperator(world.root, world.projectB, "admin", "outsider");
    for (const { route, method } of operatorRoutes()) {
      const needed = ACCESS[`${method} ${route}`]!;
      if (needed === "signedIn") continue;
      const url = urlOf(route, world.projectA);
      const body = method === "GET" || method === "DELETE" ? undefined : {};
      const below = BELOW[needed];
      if (below) {
        const refused = await members[below]!.expectError(method, url, body);
        expect(refused, `${method} ${route} as ${below}`).toMatchObject({ status: 403, body: { error: { code: "forbidden" } } });
      }
      expect((await outsider.expectError(method, url, body)).status, `${method} ${route} by another project's admin`).toBe(404);
      const allowed = await members[needed]!.raw(method, url, body);
      expect([401, 403], `${method} ${route} as ${needed}`).not.toContain(allowed.status);
    }
  });

  it("state changes need this site's Origin: a cross-site or Origin-less request is refused", async () => {
    const admin = members.admin!;
    const path = admin.p(world.projectA, "/api-keys");
    const evil = await admin.expectError("POST", path, { name: "x" }, { origin: "https://evil.example" });
    expect(evil).toMatchObject({ status: 403, body: { error: { code: "csrf_rejected" } } });
    const crossSite = await admin.expectError("POST", path, { name: "x" }, { "sec-fetch-site": "cross-site" });
    expect(crossSite).toMatchObject({ status: 403, body: { error: { code: "csrf_rejected" } } });
    const res = await fetch(`${world.server.baseUrl}${path}`, {
      method: "POST",
      headers: { cookie: admin.cookie!, "content-type": "application/json" },
      body: JSON.stringify({ name: "x" }),
    });
    expect(res.status).toBe(403);
    expect((await admin.apiKeys(world.projectA)).keys.map((k) => k.name)).not.toContain("x");
  });

  it("an operator of project A sees and approves nothing of project B", async () => {
    const callB = await runOnce(world.agentB, { tool: uniqueTool("b"), runId: uniqueRun("b"), stepId: "s" });
    const requestB = await agentAsk(world.agentB, callB.callId);
    const callA = await runOnce(world.agentA, { tool: uniqueTool("a"), runId: uniqueRun("a"), stepId: "s" });
    const requestA = await agentAsk(world.agentA, callA.callId);
    const operatorA = members.operator!;

    expect((await operatorA.listResends(world.projectA)).requests.map((r) => r.requestId)).toContain(requestA.requestId);
    expect((await operatorA.listResends(world.projectA)).requests.map((r) => r.requestId)).not.toContain(requestB.requestId);
    const attempts = [
      ["GET", operatorA.p(world.projectB, "/resend-requests")],
      ["GET", operatorA.p(world.projectB, `/resend-requests/${requestB.requestId}`)],
      ["POST", operatorA.p(world.projectB, `/resend-requests/${requestB.requestId}/approve`)],
      ["POST", operatorA.p(world.projectA, `/resend-requests/${requestB.requestId}/approve`)],
      ["GET", operatorA.p(world.projectB, `/calls/${callB.callId}`)],
      ["GET", operatorA.p(world.projectA, `/calls/${callB.callId}`)],
      ["POST", operatorA.p(world.projectA, `/calls/${callB.callId}/evict`)],
      ["GET", operatorA.p(world.projectB, "/audit")],
    ] as const;
    for (const [method, url] of attempts) {
      const body = method === "POST" ? (url.endsWith("evict") ? { reason: "x" } : { note: "x" }) : undefined;
      expect((await operatorA.expectError(method, url, body)).status, `${method} ${url}`).toBe(404);
    }
    // Agents are confined the same way: B's key cannot read A's request.
    expect((await world.agentB.expectError("GET", `/api/v1/resend-requests/${requestA.requestId}`)).status).toBe(404);
    expect((await operatorA.getResend(world.projectA, requestA.requestId)).status).toBe("pending");
    expect((await world.root.getResend(world.projectB, requestB.requestId)).status).toBe("pending");
  });
});
