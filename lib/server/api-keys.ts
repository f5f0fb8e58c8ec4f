import { sha256Hex } from "../core/canonical";
import type { ApiKeyRow, GateStore } from "../store/types";
import { newId, newSecret } from "./ids";

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

export async function issueApiKey(store: GateStore, projectId: string, name: string, now = Date.now()): Promise<IssuedApiKey> {
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
  await store.createApiKey(row);
  return { key, row };
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
