import { AdminClient, TEST_ADMIN_TOKEN } from "./admin-client";
import { TestClient } from "./client";
import { type Provider, type TestDatabase, createTestDatabase } from "./databases";
import { createTestProject } from "./fixtures";
import { type TestServer, startServer } from "./server";

export interface OwnServers {
  db: TestDatabase;
  servers: TestServer[];
  /** One agent client per instance, on the same project. */
  clients: TestClient[];
  /** The admin API through the first instance. */
  admin: AdminClient;
  projectId: string;
  stop(): Promise<void>;
}

/**
 * A database of the file's own and two gate instances on it, started one after the other (each
 * bootstraps the same admin user), with a project: for files whose counts must be exact, so that
 * no other file's write contention may answer one of their requests 503.
 */
export async function ownServerPair(provider: Provider, env: Record<string, string> = {}): Promise<OwnServers> {
  const db = await createTestDatabase(provider);
  const project = await createTestProject(db.url);
  const withAdmin = { IDEMGATE_ADMIN_TOKEN: TEST_ADMIN_TOKEN, ...env };
  const servers = [await startServer(db.url, withAdmin)];
  servers.push(await startServer(db.url, withAdmin));
  return {
    db,
    servers,
    clients: servers.map((s) => new TestClient(s.baseUrl, project.apiKey)),
    admin: new AdminClient(servers[0]!.baseUrl, project.projectId),
    projectId: project.projectId,
    stop: async () => {
      await Promise.all(servers.map((s) => s.stop()));
      await db.drop();
    },
  };
}
