import { afterEach, describe, expect, it } from "vitest";
import { DEFAULT_POLICY } from "../../../lib/core/policy";
import type { BeginInput } from "../../../lib/server/gate/gate-service";
import { PolicyService } from "../../../lib/server/policies/policy-service";
import { type EngineHistory, OTHER_TOOL, TOOL, engineHistory } from "./engine-history";
import { PolicyRepository } from "../../../lib/store/prisma/policy-repository";

/**
 * Issue #17's phantom: on `create_ticket`, a TTL edit of one second (86400 → 86401) was predicted
 * as "Deduplicated 180 → 15, Blocked 0 → 165". The history here is what agents behind the SDK
 * make: duplicates that arrive while the first attempt runs (some latched with waitMs, some
 * answered in_progress), retries after retryable failures, a model re-deciding a finished call,
 * other tools between, one run that really loops, and an eviction.
 */
let history: EngineHistory | undefined;
afterEach(async () => {
  await history?.close();
  history = undefined;
});

describe("policy simulator: the TTL edit of issue #17", () => {
  it("a one-second TTL edit predicts no change over realistic history", async () => {
    history = await engineHistory({ ...DEFAULT_POLICY });
    const { service, projectId, clock } = history;
    const call = (run: number, over: Partial<BeginInput> = {}): BeginInput => ({
      tool: TOOL,
      runId: `run-${run}`,
      stepId: "create",
      scope: null,
      toolCallId: `tc-${run}-${clock.now}`,
      agentId: null,
      args: { title: `ticket ${run}`, requestId: `${clock.now}` },
      ...over,
    });
    const lookup = (run: number) => service.begin(projectId, call(run, { tool: OTHER_TOOL, stepId: `lookup-${clock.now}` }));

    for (let run = 0; run < 40; run++) {
      clock.now += 60_000;
      const first = await service.begin(projectId, call(run));
      if (first.decision !== "execute") throw new Error(`expected execute, got ${first.decision}`);
      let attempt = first;
      if (run % 5 === 0) {
        // A retryable failure releases the key; the SDK's retry executes attempt 2.
        await service.complete(projectId, attempt.callId, attempt.leaseToken, { outcome: "failed", error: { message: "503", retryable: true } });
        clock.now += 1_000;
        const retry = await service.begin(projectId, call(run));
        if (retry.decision !== "execute") throw new Error(`expected a retry, got ${retry.decision}`);
        attempt = retry;
      }
      // Two duplicates while it runs: one answered in_progress, one latched on the outcome.
      await service.begin(projectId, call(run));
      const latched = service.begin(projectId, call(run, { waitMs: 5_000 }));
      await new Promise((resolve) => setImmediate(resolve));
      clock.now += 200;
      await service.complete(projectId, attempt.callId, attempt.leaseToken, { outcome: "succeeded", result: { ticket: run } });
      await latched;
      await lookup(run);
      // The model lost the result and decides again, after another tool.
      await service.begin(projectId, call(run));
      await lookup(run);
      if (run % 13 === 0) {
        // This run really loops: the same call over and over with nothing between.
        for (let i = 0; i < 4; i++) await service.begin(projectId, call(run));
      }
    }

    const policies = new PolicyService(history.store, new PolicyRepository(history.db), () => clock.now);
    const draft = await policies.simulate(projectId, TOOL, { ttlSeconds: 86_401 }, 500);
    expect(draft.actual.blocked).toBeGreaterThan(0);
    expect(draft.actual.deduped).toBeGreaterThan(100);
    expect(draft.simulated).toEqual(draft.actual);
    const inForce = await policies.simulate(projectId, TOOL, {}, 500);
    expect(inForce.simulated).toEqual(inForce.actual);
  });
});
