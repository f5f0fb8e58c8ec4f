import { inject } from "vitest";
import type { Provider } from "./databases";
import type { SharedServerInfo } from "./shared-servers-setup";

/**
 * This run's shared server for a provider (started once by global setup with SHARED_SERVER_ENV,
 * stopped after the last file). A file on it must create its own projects and keys and look only
 * at them: other files use the same server and database at the same time. It never stops, kills
 * or restarts the server, and asserts nothing about the instance as a whole (every project, every
 * row of a table, the server's log).
 */
export function sharedServer(provider: Provider): SharedServerInfo {
  const shared = inject("sharedServers")[provider];
  if (!shared) throw new Error(`no shared ${provider} server in this run (is the file in the integration project?)`);
  return shared;
}
