import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type TestDatabase, createTestDatabase } from "../helpers/databases";
import { type TestServer, startServer } from "../helpers/server";

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

describe("GET /api/v1/openapi.json", () => {
  let db: TestDatabase;
  let server: TestServer;
  let res: Response;
  let doc: OpenApiDocument;

  beforeAll(async () => {
    db = await createTestDatabase("sqlite");
    server = await startServer(db.url);
    res = await fetch(`${server.baseUrl}/api/v1/openapi.json`); // no Authorization header
    doc = (await res.json()) as OpenApiDocument;
  });

  afterAll(async () => {
    await server?.stop();
    await db?.drop();
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
    expect(doc.components.schemas.RunSummary!.properties!.sagaState).toMatchObject({ enum: ["running", "compensating", "compensated", "compensation_failed"] });
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
});
