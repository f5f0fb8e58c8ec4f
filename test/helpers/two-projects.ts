import { TestClient } from "./client";
import { type Provider, createTestDatabase } from "./databases";
import { createTestProject } from "./fixtures";
import { OPERATOR_ENV, OperatorClient, ROOT } from "./operator-client";
import { type TestServer, startServer } from "./server";

/**
 * One operator server over a fresh database with two projects, an agent key for each, and the
 * instance admin signed in. The second project is there to be out of reach: what A's members and
 * A's key do must never show in, or touch, B.
 */
export interface TwoProjects {
  server: TestServer;
  databaseUrl: string;
  projectA: string;
  projectB: string;
  agentA: TestClient;
  agentB: TestClient;
  root: OperatorClient;
  stop(): Promise<void>;
}

export async function startTwoProjects(provider: Provider, extraEnv: Record<string, string> = {}): Promise<TwoProjects> {
  const db = await createTestDatabase(provider);
  let server: TestServer | undefined;
  const stop = async () => {
    await server?.stop();
    await db.drop();
  };
  try {
    const [a, b] = [await createTestProject(db.url, "A"), await createTestProject(db.url, "B")];
    server = await startServer(db.url, { ...OPERATOR_ENV, ...extraEnv });
    return {
      server,
      databaseUrl: db.url,
      projectA: a.projectId,
      projectB: b.projectId,
      agentA: new TestClient(server.baseUrl, a.apiKey),
      agentB: new TestClient(server.baseUrl, b.apiKey),
      root: await OperatorClient.signIn(server.baseUrl, ROOT.email, ROOT.password),
      stop,
    };
  } catch (error) {
    // A suite whose beforeAll threw has nothing to stop in its afterAll: a half-built setup is torn down here.
    await stop();
    throw error;
  }
}
