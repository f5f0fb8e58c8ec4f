// A process whose only work is a writer-thread store: write, close, then say so. Spawned by
// sqlite-writer-thread.test.ts, because inside vitest something else always keeps the process up.
import { createProjectWithKey } from "../../../lib/server/projects";
import { SqliteGateStore } from "../../../lib/store/hot/sqlite/gate-store";

const store = new SqliteGateStore(process.argv[2]!, { writer: "worker", backgroundCheckpoints: false });
createProjectWithKey(store, "writer close")
  .then(async (created) => {
    if (!created) throw new Error("no project");
    await store.close();
    console.log("closed");
  })
  .catch((error) => {
    console.error(error);
    process.exit(1);
  });
