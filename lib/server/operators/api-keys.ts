import { sha256Hex } from "../../core/canonical";
import type { ApiKeyRow, GateStore } from "../../store/ports/gate-store";
import { newId, newSecret } from "../ids";

export const API_KEY_PREFIX = "ig_";

export interface IssuedApiKey {
  /** The plaintext key: shown once, never stored. */
  key: string;
  row: ApiKeyRow;
}

/** Keys carry 256 bits of randomness, so a plain sha256 is a sufficient one-way store. */
export function hashApiKey(key: string): string {
  return sha256Hex(key);
}

/** A new key and the row that stores it (hashed): the caller decides where and how to write it. */
export function mintApiKey(projectId: string, name: string, now = Date.now()): IssuedApiKey {
  const key = `${API_KEY_PREFIX}${newSecret(32)}`;
  const row: ApiKeyRow = {
    id: newId("key", now),
    projectId,
    name,
    prefix: key.slice(0, 10),
    hash: hashApiKey(key),
    createdAt: now,
    lastUsedAt: null,
    revokedAt: null,
  };
  return { key, row };
}

export async function issueApiKey(store: GateStore, projectId: string, name: string, now = Date.now()): Promise<IssuedApiKey> {
  const issued = mintApiKey(projectId, name, now);
  await store.createApiKey(issued.row);
  return issued;
}

export interface Principal {
  projectId: string;
  apiKeyId: string;
}

const CACHE_TTL_MS = 5_000;
const TOUCH_EVERY_MS = 60_000;

/**
 * Resolves a bearer key to its project. A short cache keeps the lookup off the hot path; a
 * revocation therefore takes effect within CACHE_TTL_MS.
 */
export class ApiKeyAuthenticator {
  private readonly cache = new Map<string, { principal: Principal | null; until: number }>();
  private readonly touched = new Map<string, number>();

  constructor(private readonly store: GateStore) {}

  /** A revoked key stops working in this process at once (other processes: within CACHE_TTL_MS). */
  forget(apiKeyId: string): void {
    for (const [hash, entry] of this.cache) if (entry.principal?.apiKeyId === apiKeyId) this.cache.delete(hash);
  }

  async authenticate(key: string, now = Date.now()): Promise<Principal | null> {
    if (!key.startsWith(API_KEY_PREFIX)) return null;
    const hash = hashApiKey(key);
    const cached = this.cache.get(hash);
    if (cached && cached.until > now) return cached.principal;

    const row = await this.store.findApiKeyByHash(hash);
    const principal = row && row.revokedAt === null ? { projectId: row.projectId, apiKeyId: row.id } : null;
    if (this.cache.size > 10_000) this.cache.clear();
    this.cache.set(hash, { principal, until: now + CACHE_TTL_MS });
    if (principal && (this.touched.get(principal.apiKeyId) ?? 0) + TOUCH_EVERY_MS < now) {
      this.touched.set(principal.apiKeyId, now);
      // Last-used is informational: never let it fail or slow a request.
      this.store.touchApiKey(principal.apiKeyId, now).catch(() => undefined);
    }
    return principal;
  }
}
