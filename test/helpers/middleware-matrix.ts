import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe } from "vitest";
import { type Gate, createGate } from "../../lib/sdk";
import { TEST_ADMIN_TOKEN } from "./admin-client";
import { PROVIDERS, type Provider, type TestDatabase, createTestDatabase } from "./databases";
import { createTestProject } from "./fixtures";
import { type Framework, type ToolServer, nextFixtureEnv, nextToolServer, startToolServer } from "./http-tool-servers";
import { type GatewayWorld, startGatewayWorld } from "./gateway-world";
import { OPERATOR_ENV } from "./operator-client";
import { type TestServer, startServer } from "./server";
import { type TestGate, inProcessGate } from "../unit/sdk/helpers";

/** Where the middleware's gate lives: in the tool's process (a SQLite file), or a gate server over HTTP. */
export type Backend = "in-process" | "http";

/** A gate server on one provider's database, whose test-only routes mount the middleware in real Next.js route handlers. */
export interface MiddlewareApp {
  db: TestDatabase;
  project: { projectId: string; apiKey: string };
  /** The refunds server the Next.js fixture routes forward executions to (it counts them). */
  refunds: ToolServer;
  server: TestServer;
}

const apps = new Map<Provider, Promise<MiddlewareApp>>();

/** One gate server per provider for a whole file (call stopMiddlewareApps in afterAll). */
export function middlewareApp(provider: Provider): Promise<MiddlewareApp> {
  let app = apps.get(provider);
  if (!app) {
    app = (async () => {
      const db = await createTestDatabase(provider);
      const project = await createTestProject(db.url);
      // Only its ungated /v1/direct is used: its gated routes' gate is never asked.
      const refunds = await startToolServer("express", createGate({ baseUrl: "http://127.0.0.1:1", apiKey: "ig_unused" }));
      const server = await startServer(db.url, { ...OPERATOR_ENV, IDEMGATE_ADMIN_TOKEN: TEST_ADMIN_TOKEN, ...nextFixtureEnv(refunds, project) });
      // Warm the routes (a loaded machine's first request to a cold route module can outlast a client's timeout).
      await createGate({ baseUrl: server.baseUrl, apiKey: project.apiKey }).call({ tool: "warm-up", runId: randomUUID() }, () => null);
      for (const backend of ["in-process", "http"]) await (await fetch(`${server.baseUrl}/test-fixtures/http-tools/${backend}/v1/refunds`, { method: "POST" })).arrayBuffer();
      return { db, project, refunds, server };
    })();
    apps.set(provider, app);
  }
  return app;
}

export async function stopMiddlewareApps(): Promise<void> {
  for (const app of apps.values()) {
    const { db, refunds, server } = await app;
    await server.stop();
    await refunds.close();
    await db.drop();
  }
  apps.clear();
}

/**
 * The middleware in Express, Hono, a Fetch route handler and real Next.js route handlers, with the
 * gate in process and over HTTP. On Postgres the gate in process is the Next.js app's own (a tool
 * server's in-process gate is a SQLite file).
 */
export function middlewareMatrix(provider: Provider): [Framework, Backend][] {
  const overHttp: [Framework, Backend][] = [
    ["express", "http"],
    ["hono", "http"],
    ["fetch", "http"],
    ["next", "in-process"],
    ["next", "http"],
  ];
  if (provider !== "sqlite") return overHttp;
  return [["express", "in-process"], ["hono", "in-process"], ["fetch", "in-process"], ...overHttp];
}

export interface MountedMiddleware {
  tool: ToolServer;
  /** The app behind an "http" or "next" mount (its policies, its records); null for a gate in the tool's process. */
  app: MiddlewareApp | null;
  close(): Promise<void>;
}

export async function mountMiddleware(framework: Framework, backend: Backend, provider: Provider): Promise<MountedMiddleware> {
  if (framework === "next") {
    const app = await middlewareApp(provider);
    return { tool: nextToolServer(app.server.baseUrl, backend, app.refunds), app, close: async () => undefined };
  }
  let gate: Gate;
  let inProcess: TestGate | undefined;
  let app: MiddlewareApp | null = null;
  if (backend === "in-process") {
    inProcess = await inProcessGate();
    gate = inProcess.gate;
  } else {
    app = await middlewareApp(provider);
    gate = createGate({ baseUrl: app.server.baseUrl, apiKey: app.project.apiKey, waitMs: 2_000 });
  }
  const tool = await startToolServer(framework, gate);
  return {
    tool,
    app,
    close: async () => {
      await tool.close();
      await inProcess?.close();
    },
  };
}

/** A POST of exactly these bytes with this key; the answer's status, headers and bytes. */
export async function postRaw(url: string, key: string, text: string): Promise<{ status: number; headers: Headers; bytes: Buffer }> {
  const res = await fetch(url, { method: "POST", headers: { "content-type": "application/json", "idempotency-key": key }, body: text });
  return { status: res.status, headers: res.headers, bytes: Buffer.from(await res.arrayBuffer()) };
}

/**
 * One describe per provider and mount of the matrix (`only` narrows the mounts), titled
 * "<provider>: Idempotency-Key middleware in <framework>, gate <backend>: <title>", its middleware
 * mounted before its tests and closed after; the gate servers stop after the file. `tests` reads
 * the mount through `mounted()` (it exists once beforeAll ran).
 */
export function describeMiddlewareMatrix(
  title: string,
  tests: (mounted: () => MountedMiddleware, mount: { provider: Provider; framework: Framework; backend: Backend }) => void,
  only: (framework: Framework, backend: Backend) => boolean = () => true,
): void {
  const rows = PROVIDERS.flatMap((provider) => middlewareMatrix(provider).filter(([framework, backend]) => only(framework, backend)).map(([framework, backend]) => [provider, framework, backend] as const));
  describe.each(rows)(`%s: Idempotency-Key middleware in %s, gate %s: ${title.replaceAll("%", "%%")}`, (provider, framework, backend) => {
    let current: MountedMiddleware | undefined;
    beforeAll(async () => {
      current = await mountMiddleware(framework, backend, provider);
    });
    afterAll(async () => {
      await current?.close();
    });
    tests(() => current!, { provider, framework, backend });
  });
  afterAll(async () => {
    await stopMiddlewareApps();
  });
}

/** One describe per provider around a /gw world (one gate instance, a counting upstream), stopped after its tests. */
export function describeGatewayWorld(title: string, tests: (world: () => GatewayWorld) => void): void {
  describe.each(PROVIDERS)(`%s: /gw: ${title.replaceAll("%", "%%")}`, (provider) => {
    let current: GatewayWorld | undefined;
    beforeAll(async () => {
      current = await startGatewayWorld(provider);
    });
    afterAll(async () => {
      await current?.stop();
    });
    tests(() => current!);
  });
}
