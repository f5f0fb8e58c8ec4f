import { beforeAll, describe, expect, it } from "vitest";
import { createTestProject } from "../helpers/fixtures";
import { sharedServer } from "../helpers/shared-server";
import type { SharedServerInfo } from "../helpers/shared-servers-setup";

interface SchemaObject {
  type?: string | string[];
  required?: string[];
  properties?: Record<string, SchemaObject & { maximum?: number; minimum?: number }>;
  additionalProperties?: boolean | SchemaObject;
}

interface OpenApiDocument {
  openapi: string;
  info: { title: string; version: string };
  paths: Record<string, Record<string, { responses: Record<string, unknown>; security?: unknown[] }>>;
  components: { schemas: Record<string, SchemaObject>; securitySchemes?: Record<string, unknown> };
}

/** What Next.js puts on an App Router route's answer (next.config.mjs's headers and its Vary), and the JSON type. */
const FRAMEWORK_HEADERS = ["content-security-policy", "x-frame-options", "x-content-type-options", "referrer-policy", "vary", "content-type"];

describe("GET /api/v1/openapi.json", () => {
  // The run's shared server: nothing here restarts it or looks beyond its own projects.
  let server: SharedServerInfo;
  let res: Response;
  let doc: OpenApiDocument;
  let apiKey: string;

  beforeAll(async () => {
    server = await sharedServer("sqlite");
    apiKey = (await createTestProject(server.databaseUrl)).apiKey;
    res = await fetch(`${server.baseUrl}/api/v1/openapi.json`); // no Authorization header
    doc = (await res.json()) as OpenApiDocument;
  });

  it("is public: 200 JSON without an API key, OpenAPI 3.1.0", () => {
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^application\/json/);
    expect(doc.openapi).toBe("3.1.0");
    expect(doc.info.title).toBeTruthy();
  });

  it("documents every agent endpoint with its method", () => {
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining([
        "/api/v1/calls/begin",
        "/api/v1/calls/{callId}/complete",
        "/api/v1/calls/{callId}/heartbeat",
        "/api/v1/calls/{callId}",
      ]),
    );
    expect(doc.paths["/api/v1/calls/begin"]).toHaveProperty("post");
    expect(doc.paths["/api/v1/calls/{callId}/complete"]).toHaveProperty("post");
    expect(doc.paths["/api/v1/calls/{callId}/heartbeat"]).toHaveProperty("post");
    expect(doc.paths["/api/v1/calls/{callId}"]).toHaveProperty("get");
    expect(Object.keys(doc.paths["/api/v1/calls/{callId}/complete"]!.post!.responses)).toContain("409");
    expect(doc.paths["/api/v1/calls/begin"]!.post!.security).toBeDefined();
  });

  it("documents the multi-step additions: unknown status checks, the operators' queue, a run's saga state", () => {
    expect(doc.paths["/api/v1/calls/{callId}/check"]).toHaveProperty("post");
    expect(doc.paths["/api/v1/operator/projects/{projectId}/queue"]).toHaveProperty("get");
    expect(doc.components.schemas.CheckReportRequest!.required).toEqual(expect.arrayContaining(["leaseToken", "outcome"]));
    expect(Object.keys(doc.components.schemas.OperatorQueue!.properties!)).toEqual(["runs", "uncheckedCalls", "accepted", "verify"]);
    expect(doc.components.schemas.RunSummary!.properties!.sagaState).toMatchObject({ enum: ["running", "compensating", "compensated", "compensation_failed", "none"] });
  });

  it("is derived from the zod schemas: BeginRequest requires tool and runId, caps waitMs at 10 000, is strict", () => {
    const begin = doc.components.schemas.BeginRequest;
    expect(begin).toBeDefined();
    expect(begin!.required).toEqual(expect.arrayContaining(["tool", "runId"]));
    expect(begin!.required).not.toContain("stepId");
    expect(begin!.required).not.toContain("waitMs");
    expect(begin!.properties!.waitMs).toMatchObject({ maximum: 10_000, minimum: 0 });
    expect(Object.keys(begin!.properties!)).toEqual(
      expect.arrayContaining(["tool", "runId", "stepId", "scope", "toolCallId", "agentId", "args", "waitMs", "bypassToken"]),
    );
    expect(begin!.additionalProperties).toBe(false);
  });

  it("names the decision and error components of the contract", () => {
    expect(Object.keys(doc.components.schemas)).toEqual(
      expect.arrayContaining(["BeginResponse", "ExecuteDecision", "ReplayDecision", "CallStatus", "CompleteRequest", "HeartbeatRequest", "Error"]),
    );
  });

  // npm start serves the agent API on a lean path beside Next.js (scripts/serve.mjs); to a client it
  // must be indistinguishable from the Next.js routes it stands in for.
  it("agent API answers carry the headers every Next.js route answer carries, on success and on error", async () => {
    const nextRoute = await fetch(`${server.baseUrl}/api/livez`);
    expect(nextRoute.status).toBe(200);
    const auth = { authorization: `Bearer ${apiKey}`, "content-type": "application/json" };
    const answers = [
      await fetch(`${server.baseUrl}/api/v1/calls/begin`, { method: "POST", headers: auth, body: JSON.stringify({ tool: "t", runId: "r" }) }),
      await fetch(`${server.baseUrl}/api/v1/calls/call_missing`, { headers: auth }),
      await fetch(`${server.baseUrl}/api/v1/calls/call_missing/complete`, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" }),
      await fetch(`${server.baseUrl}/api/v1/resend-requests/rr_missing`, { headers: auth }),
    ];
    expect(answers.map((answer) => answer.status)).toEqual([200, 404, 401, 404]);
    for (const answer of answers) {
      for (const name of FRAMEWORK_HEADERS) expect(answer.headers.get(name), name).toBe(nextRoute.headers.get(name));
      expect(answer.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
    }
    expect(answers[0]!.headers.get("cache-control")).toBe("no-store");
  });

  it("requests outside the agent routes' exact shapes are answered by Next.js as before", async () => {
    const auth = { authorization: `Bearer ${apiKey}` };
    // begin and preview answer POST only; a trailing slash is redirected; an unknown action is a 404 page.
    expect((await fetch(`${server.baseUrl}/api/v1/calls/begin`, { headers: auth })).status).toBe(405);
    expect((await fetch(`${server.baseUrl}/api/v1/calls/preview`, { headers: auth })).status).toBe(405);
    const slash = await fetch(`${server.baseUrl}/api/v1/calls/begin/`, { method: "POST", headers: auth, redirect: "manual" });
    expect(slash.status).toBe(308);
    expect(slash.headers.get("location")).toBe("/api/v1/calls/begin");
    expect((await fetch(`${server.baseUrl}/api/v1/calls/call_x/unknown`, { method: "POST", headers: auth })).status).toBe(404);
    // An escaped id reaches the same route through Next.js, decoded.
    const escaped = await fetch(`${server.baseUrl}/api/v1/calls/call%5Fmissing`, { headers: auth });
    expect(escaped.status).toBe(404);
    expect(((await escaped.json()) as { error: { message: string } }).error.message).toContain("call_missing");
  });
});
