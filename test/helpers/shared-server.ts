import { existsSync, readFileSync } from "node:fs";
import { inject } from "vitest";
import type { Provider } from "./databases";
import type { SharedServerInfo, SharedServersState } from "./shared-servers-setup";

/**
 * This run's shared server for a provider (started by global setup with SHARED_SERVER_ENV, stopped
 * after the last file). A file on it must create its own projects and keys and look only at them:
 * other files use the same server and database at the same time. It never stops, kills or restarts
 * the server, and asserts nothing about the instance as a whole (every project, every row of a
 * table, the server's log).
 */
export async function sharedServer(provider: Provider): Promise<SharedServerInfo> {
  return (await sharedState(provider, "primary")).primary[provider]!;
}

/** The shared server and a second instance on the same database (same settings), for tests of two processes. */
export async function sharedServerPair(provider: Provider): Promise<[SharedServerInfo, SharedServerInfo]> {
  const state = await sharedState(provider, "secondary");
  return [state.primary[provider]!, state.secondary[provider]!];
}

/** The boots run beside the unit project; a budget for a loaded machine, like a server of a file's own. */
const BOOT_BUDGET_MS = 240_000;

async function sharedState(provider: Provider, role: "primary" | "secondary"): Promise<SharedServersState> {
  const file = inject("sharedServersFile");
  if (!file) throw new Error("no shared servers in this run (is the file in the integration project?)");
  const deadline = Date.now() + BOOT_BUDGET_MS;
  for (;;) {
    const state = existsSync(file) ? (JSON.parse(readFileSync(file, "utf8")) as SharedServersState) : null;
    if (state?.[role][provider]) return state;
    // A server that is up serves its files whatever became of another one's boot.
    const failure = state?.failed[`${provider} primary`] ?? state?.failed[`${provider} ${role}`] ?? state?.error;
    if (failure) throw new Error(`the shared ${provider} server (${role}) did not start:\n${failure}`);
    if (Date.now() > deadline) throw new Error(`the shared ${provider} server (${role}) was not ready within ${BOOT_BUDGET_MS / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
