import type { OperatorStore } from "../../store/ports/operator-store";
import type { ApiKeyRow } from "../../store/ports/gate-store";
import { type ApiKeyAuthenticator, mintApiKey } from "./api-keys";
import { AppError } from "../app-error";
import { type Actor, auditEntry } from "./operator-audit";

/** An admin's API key management: create (the key is shown once), list, revoke; all audited. */
export class OperatorApiKeys {
  constructor(
    private readonly store: OperatorStore,
    private readonly authenticator: ApiKeyAuthenticator,
    private readonly clock: () => number = Date.now,
  ) {}

  list(projectId: string): Promise<ApiKeyRow[]> {
    return this.store.listApiKeys(projectId);
  }

  async create(projectId: string, name: string, actor: Actor): Promise<{ key: string; row: ApiKeyRow }> {
    const now = this.clock();
    const { key, row } = mintApiKey(projectId, name, now);
    const audit = auditEntry(actor, projectId, "api_key.created", { type: "api_key", id: row.id }, { name, prefix: row.prefix }, now);
    await this.store.createApiKey(row, audit);
    return { key, row };
  }

  async revoke(projectId: string, keyId: string, actor: Actor): Promise<ApiKeyRow> {
    const now = this.clock();
    const audit = auditEntry(actor, projectId, "api_key.revoked", { type: "api_key", id: keyId }, null, now);
    const revoked = await this.store.revokeApiKey(projectId, keyId, now, audit);
    const row = (await this.store.listApiKeys(projectId)).find((key) => key.id === keyId);
    if (!row) throw new AppError("not_found", `no API key ${keyId} in this project`);
    if (!revoked) throw new AppError("invalid_state", `API key ${keyId} was already revoked`);
    this.authenticator.forget(keyId);
    return row;
  }
}
