import { TestClient } from "./client";
import { type Provider, createTestDatabase } from "./databases";
import { createTestProject } from "./fixtures";
import { OPERATOR_ENV, OperatorClient, ROOT } from "./operator-client";
import { type TestServer, startServer } from "./server";
import { sharedServer } from "./shared-server";

/**
 * One operator server over a fresh database with two projects, an agent key for each, and the
 * instance admin signed in. The second project is there to be out of reach: what A's members and
 * A's key do must never show in, or touch, B.
 */
export interface TwoProjects {
  server: Pick<TestServer, "baseUrl">;
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
    server = await startServer(db.url, { ...OPERATOR_ENV, ...extraEnv });
    return await worldOn(server, db.url, stop);
  } catch (error) {
    // A suite whose beforeAll threw has nothing to stop in its afterAll: a half-built setup is torn down here.
    await stop();
    throw error;
  }
}

/**
 * The same two projects, made afresh on the run's shared server (test/helpers/shared-server.ts) for
 * a file that needs no settings, restart or database of its own; stop() leaves the server running.
 */
export async function twoProjectsOnSharedServer(provider: Provider): Promise<TwoProjects> {
  const shared = await sharedServer(provider);
  return worldOn(shared, shared.databaseUrl, async () => undefined);
}

async function worldOn(server: Pick<TestServer, "baseUrl">, databaseUrl: string, stop: () => Promise<void>): Promise<TwoProjects> {
  const [a, b] = [await createTestProject(databaseUrl, "A"), await createTestProject(databaseUrl, "B")];
  return {
    server,
    databaseUrl,
    projectA: a.projectId,
    projectB: b.projectId,
    agentA: new TestClient(server.baseUrl, a.apiKey),
    agentB: new TestClient(server.baseUrl, b.apiKey),
    root: await OperatorClient.signIn(server.baseUrl, ROOT.email, ROOT.password),
    stop,
  };
}
