import type { OperatorStore } from "../../store/ports/operator-store";

/** The project's API key names by id (revoked keys included: old entries still name them). */
export async function apiKeyNames(store: OperatorStore, projectId: string): Promise<Map<string, string>> {
  return new Map((await store.listApiKeys(projectId)).map((key) => [key.id, key.name]));
}
