import { AdminClient, TEST_ADMIN_TOKEN } from "./admin-client";
import { type ChargeUpstream, startChargeUpstream } from "./charge-upstream";
import { type Provider, type TestDatabase, createTestDatabase } from "./databases";
import { createTestProject } from "./fixtures";
import { OPERATOR_ENV, OperatorClient, ROOT } from "./operator-client";
import { type TestServer, startServer } from "./server";
import { sharedServer } from "./shared-server";

/**
 * A project with an HTTP upstream `pay` in front of a charge counter, on gate servers that are
 * either the run's shared one (what a file sees of it: where it answers, its database) or its own.
 */
export interface SharedGatewayWorld {
  db: Pick<TestDatabase, "provider" | "url">;
  servers: Pick<TestServer, "baseUrl">[];
  projectId: string;
  apiKey: string;
  /** The API key's id: the caller its `/gw` keys are scoped to. */
  apiKeyId: string;
  upstream: ChargeUpstream;
  root: OperatorClient;
  policies: AdminClient;
  /** A request through `/gw/{upstream}/…` on server `via`. */
  gw(path: string, init?: { method?: string; key?: string | null; body?: unknown; headers?: Record<string, string>; signal?: AbortSignal; via?: number; upstream?: string }): Promise<Response>;
  stop(): Promise<void>;
}

/** Gate servers of the file's own (one or more on one database of its own), which it may kill. */
export interface GatewayWorld extends SharedGatewayWorld {
  db: TestDatabase;
  servers: TestServer[];
}

export async function startGatewayWorld(provider: Provider, instances = 1): Promise<GatewayWorld> {
  const db = await createTestDatabase(provider);
  // One after the other: the first start bootstraps the instance admin, which two at once would race on.
  const servers: TestServer[] = [];
  // Instances share the key that seals upstream secrets, as a deployment must (each has its own data dir).
  const env = { ...OPERATOR_ENV, IDEMGATE_ADMIN_TOKEN: TEST_ADMIN_TOKEN, IDEMGATE_SECRETS_KEY: Buffer.alloc(32, 7).toString("base64") };
  for (let i = 0; i < instances; i++) servers.push(await startServer(db.url, env));
  const world = await worldOn(db, servers);
  return {
    ...world,
    db,
    servers,
    stop: async () => {
      await Promise.all(servers.map((s) => s.stop().catch(() => undefined)));
      await world.stop();
      await db.drop();
    },
  };
}

/**
 * The same world on the run's shared server (test/helpers/shared-server.ts), for a file that
 * restarts nothing and asserts only on its own project: no server boots. stop() closes the upstream
 * and leaves the server running.
 */
export async function gatewayWorldOnSharedServer(provider: Provider): Promise<SharedGatewayWorld> {
  const shared = await sharedServer(provider);
  return worldOn({ provider, url: shared.databaseUrl }, [shared]);
}

async function worldOn(db: SharedGatewayWorld["db"], servers: SharedGatewayWorld["servers"]): Promise<SharedGatewayWorld> {
  const project = await createTestProject(db.url);
  const upstream = await startChargeUpstream();
  const root = await OperatorClient.signIn(servers[0]!.baseUrl, ROOT.email, ROOT.password);
  const base = `/api/v1/operator/projects/${project.projectId}`;
  for (const [path, body] of [
    // The allowlist first: an upstream at an address it refuses is refused at registration.
    [`${base}/outbound-allowlist`, { pattern: `127.0.0.1:${upstream.port}`, note: "the test upstream" }],
    [`${base}/upstreams`, { kind: "http", name: "pay", url: `${upstream.url}/`, secret: "sk_test_upstream" }],
  ] as const) {
    const res = await root.raw("POST", path, body);
    if (!res.ok) throw new Error(`setup ${path}: ${res.status} ${await res.text()}`);
  }
  const keys = (await (await root.raw("GET", `${base}/api-keys`)).json()) as { keys: { id: string; prefix: string }[] };
  const apiKeyId = keys.keys.find((k) => project.apiKey.startsWith(k.prefix))!.id;
  return {
    db,
    servers,
    projectId: project.projectId,
    apiKey: project.apiKey,
    apiKeyId,
    upstream,
    root,
    policies: new AdminClient(servers[0]!.baseUrl, project.projectId),
    gw: (path, init = {}) =>
      fetch(`${servers[init.via ?? 0]!.baseUrl}/gw/${init.upstream ?? "pay"}/${path}`, {
        method: init.method ?? "POST",
        headers: {
          authorization: `Bearer ${project.apiKey}`,
          ...(init.body !== undefined ? { "content-type": "application/json" } : {}),
          ...(init.key ? { "idempotency-key": init.key } : {}),
          ...init.headers,
        },
        body: init.body !== undefined ? JSON.stringify(init.body) : undefined,
        signal: init.signal,
      }),
    stop: () => upstream.close(),
  };
}
