import { createHmac } from "node:crypto";
import type { GateStore } from "../store/ports/gate-store";

/** A key every instance on one database must hold the same: what it is called in the settings, and the key. */
export interface SharedKey {
  setting: "IDEMGATE_SECRETS_KEY" | "BETTER_AUTH_SECRET";
  key: Buffer | string;
}

/** The install_secrets row that holds a key's check (never the key). */
export const checkName = (setting: SharedKey["setting"]) => `key-check:${setting}`;

/** An HMAC of a fixed label under the key: equal keys give equal checks, and a check gives nothing of its key. */
export function keyCheck({ setting, key }: SharedKey): string {
  return createHmac("sha256", key).update(`idemgate key check: ${setting}`).digest("hex");
}

/**
 * Why: each of these keys falls back to a file generated in the instance's own data directory. Two
 * instances on one database that each made their own cannot open each other's sealed secrets (an
 * alert channel's signing secret, an upstream's token) nor accept each other's sessions and lease
 * tokens, and nothing said so: an alert claimed by the wrong instance stalled. The first instance
 * records each key's check in the database; one whose key differs refuses to start, naming the setting.
 */
export async function assertSharedKeys(store: GateStore, keys: SharedKey[], now: number): Promise<void> {
  for (const shared of keys) {
    const mine = keyCheck(shared);
    const recorded = await store.installSecret(checkName(shared.setting), mine, now);
    if (recorded !== mine) {
      throw new Error(
        `${shared.setting} differs from the one this database's other instances use: every instance on one database needs the same ${shared.setting} (unset, each instance generates its own into its data directory)`,
      );
    }
  }
}
