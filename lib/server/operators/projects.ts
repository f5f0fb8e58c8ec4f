import type { GateStore } from "../../store/ports/gate-store";
import { type IssuedApiKey, issueApiKey } from "./api-keys";
import { newId } from "../ids";

export interface NewProject {
  projectId: string;
  apiKey: IssuedApiKey;
}

export async function createProjectWithKey(store: GateStore, name: string, options: { projectId?: string } = {}): Promise<NewProject | null> {
  const now = Date.now();
  const projectId = options.projectId ?? newId("proj", now);
  const created = await store.createProject({ id: projectId, name, createdAt: now });
  if (!created) return null;
  return { projectId, apiKey: await issueApiKey(store, projectId, "default", now) };
}
