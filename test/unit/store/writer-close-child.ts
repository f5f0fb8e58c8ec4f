// A process whose only work is a SQLite gate store with a worker thread: write, close, then say so.
// Spawned by sqlite-writer-thread.test.ts, because inside vitest something else always keeps the
// process up. `writer`: writes on the writer thread; `checkpoints`: inline writes, enough of them
// to start the background checkpoint worker.
import { DEFAULT_EFFECTIVE_POLICY } from "../../../lib/core/policy";
import { GateService } from "../../../lib/server/gate/gate-service";
import { LeaseTokens } from "../../../lib/server/gate/lease-tokens";
import { createProjectWithKey } from "../../../lib/server/operators/projects";
import { SqliteGateStore } from "../../../lib/store/hot/sqlite/gate-store";

const [file, mode] = process.argv.slice(2);
const store =
  mode === "checkpoints"
    ? new SqliteGateStore(file!, { checkpoints: { intervalMs: 10 } })
    : new SqliteGateStore(file!, { writer: "worker", backgroundCheckpoints: false });

async function main() {
  const created = await createProjectWithKey(store, "worker close");
  if (!created) throw new Error("no project");
  if (mode === "checkpoints") {
    const gate = new GateService(store, { forTool: async () => DEFAULT_EFFECTIVE_POLICY }, { leaseTokens: new LeaseTokens("close-child") });
    for (let i = 0; i < 600; i++) await gate.begin(created.projectId, { tool: "t", runId: `r${i}`, stepId: "s", scope: null, toolCallId: null, agentId: null, args: { i } });
  }
  await store.close();
  console.log("closed");
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
