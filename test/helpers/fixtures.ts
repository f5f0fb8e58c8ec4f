import { openStore } from "../../lib/store/hot/open-gate-store";
import { createProjectWithKey } from "../../lib/server/projects";
import type { GateEvent } from "../../lib/store/ports/gate-store";

export interface TestProject {
  projectId: string;
  apiKey: string;
}

/** A fresh project with its own API key, written straight into the database under test. */
export async function createTestProject(databaseUrl: string, name = "test project"): Promise<TestProject> {
  const store = openStore({ databaseUrl });
  try {
    const created = await createProjectWithKey(store, name);
    if (!created) throw new Error("project id collision");
    return { projectId: created.projectId, apiKey: created.apiKey.key };
  } finally {
    await store.close();
  }
}

export async function eventsForCall(databaseUrl: string, projectId: string, callId: string): Promise<GateEvent[]> {
  const store = openStore({ databaseUrl });
  try {
    return await store.listEventsForCall(projectId, callId);
  } finally {
    await store.close();
  }
}
