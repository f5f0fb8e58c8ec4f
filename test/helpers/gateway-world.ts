import { AdminClient, TEST_ADMIN_TOKEN } from "./admin-client";
import { type ChargeUpstream, startChargeUpstream } from "./charge-upstream";
import { type Provider, type TestDatabase, createTestDatabase } from "./databases";
import { createTestProject } from "./fixtures";
import { OPERATOR_ENV, OperatorClient, ROOT } from "./operator-client";
import { type TestServer, startServer } from "./server";

/** Gate servers (one or more on one database) with an HTTP upstream `pay` in front of a charge counter. */
export interface GatewayWorld {
  db: TestDatabase;
  servers: TestServer[];
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

export async function startGatewayWorld(provider: Provider, instances = 1): Promise<GatewayWorld> {
  const db = await createTestDatabase(provider);
  const project = await createTestProject(db.url);
  const upstream = await startChargeUpstream();
  // One after the other: the first start bootstraps the instance admin, which two at once would race on.
  const servers: TestServer[] = [];
  // Instances share the key that seals upstream secrets, as a deployment must (each has its own data dir).
  const env = { ...OPERATOR_ENV, IDEMGATE_ADMIN_TOKEN: TEST_ADMIN_TOKEN, IDEMGATE_SECRETS_KEY: Buffer.alloc(32, 7).toString("base64") };
  for (let i = 0; i < instances; i++) servers.push(await startServer(db.url, env));
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
    stop: async () => {
      await Promise.all(servers.map((s) => s.stop().catch(() => undefined)));
      await upstream.close();
      await db.drop();
    },
  };
}
