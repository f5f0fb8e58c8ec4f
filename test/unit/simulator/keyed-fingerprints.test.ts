import { describe, expect, it } from "vitest";
import { DEFAULT_POLICY, type ToolPolicy } from "../../../lib/core/policy";
import { InstallFingerprinter } from "../../../lib/server/gate/install-fingerprinter";
import { simulateLedger } from "../../../lib/server/policies/policy-simulator";
import { type Op, TOOL, engineHistory, play } from "./engine-history";

/**
 * The gate stores fingerprints keyed with the install's secret (#16 item 3). A draft that keys
 * calls differently re-derives them from the args the records kept; derived with a bare SHA-256,
 * they never equalled the recorded ones, so the simulator took every call's args for lost (or
 * compared keyed with unkeyed fingerprints and saw a mismatch in every duplicate).
 */
describe("policy simulator with keyed fingerprints", () => {
  it("re-keys calls whose args were kept, as the engine would, under a draft with another key strategy", async () => {
    const policy: ToolPolicy = { ...DEFAULT_POLICY, ttlSeconds: 600, loop: { ...DEFAULT_POLICY.loop, enabled: false } };
    const history = await engineHistory(policy);
    try {
      // Two steps of one run with the same args, each run once under the step strategy.
      const ops: Op[] = [
        { op: "begin", tool: "main", run: 0, step: 1, args: 4, scope: null, bypass: null },
        { op: "complete", attempt: 0, outcome: "succeeded" },
        { op: "advance", ms: 1_000 },
        { op: "begin", tool: "main", run: 0, step: 2, args: 4, scope: null, bypass: null },
        { op: "complete", attempt: 0, outcome: "succeeded" },
        { op: "advance", ms: 1_000 },
        { op: "begin", tool: "main", run: 0, step: 3, args: 5, scope: null, bypass: null },
      ];
      await play(history, ops);
      const rows = await history.store.simulationLedger(history.projectId, TOOL, 1_000);
      const fingerprint = await new InstallFingerprinter(history.store, () => history.clock.now).load();

      const same = simulateLedger(history.projectId, TOOL, policy, policy, rows, fingerprint);
      expect(same.simulated).toEqual(same.actual);

      // Keyed on the args: the second step's identical args replay the first, and the third step
      // (other args) runs. Every call is replayable: their args were kept whole.
      const byArgs = simulateLedger(history.projectId, TOOL, { ...policy, keyStrategy: "args" }, policy, rows, fingerprint);
      expect(byArgs.unreplayable).toEqual([]);
      expect(byArgs.simulated).toMatchObject({ executed: 2, deduped: 1 });

      // Another ignored field: every fingerprint is derived anew from the kept args, which are known
      // only because they fingerprint, under the install's key, to what was recorded.
      const ignoring = simulateLedger(history.projectId, TOOL, { ...policy, ignoreFields: [...policy.ignoreFields, "note"] }, policy, rows, fingerprint);
      expect(ignoring.unreplayable).toEqual([]);
      expect(ignoring.simulated).toMatchObject({ executed: 3 });
    } finally {
      await history.close();
    }
  }, 60_000);
});
