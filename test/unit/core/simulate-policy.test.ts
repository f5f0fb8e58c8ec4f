import { describe, expect, it } from "vitest";
import { DEFAULT_POLICY, type ToolPolicy } from "../../../lib/core/policy";
import { simulatePolicy } from "../../../lib/core/simulate-policy";
import { UNREPLAYABLE } from "../../../lib/core/simulation-keys";
import type { LedgerEntry, PastBegin } from "../../../lib/core/simulation-ledger";
import { emptyTally, tallyDecisions } from "../../../lib/core/simulation-tally";

const T0 = 1_700_000_000_000;
const policy = (over: Partial<ToolPolicy> = {}): ToolPolicy => ({ ...DEFAULT_POLICY, ...over });

function begin(over: Partial<PastBegin>): PastBegin {
  return {
    type: "begin",
    at: T0,
    projectId: "p",
    tool: "send_email",
    runId: "run-1",
    agentId: null,
    toolCallId: "tc-1",
    key: "k1",
    argsFingerprint: "f1",
    identity: { stepId: "notify", scope: null, args: { to: "a" }, argsKnown: true },
    decision: "execute",
    callId: "call_1",
    attempt: 1,
    latched: false,
    loopWarned: false,
    bypass: null,
    counted: true,
    ...over,
  };
}
const done = (at: number, state: "succeeded" | "failed" | "released" = "succeeded"): LedgerEntry => ({ type: "outcome", at, callId: "call_1", attempt: 1, state, resolved: false });

describe("simulatePolicy — a tool's ledger replayed under a draft", () => {
  // One run: the call, a duplicate while it runs, one latched on its outcome, then the model decides again.
  const history: LedgerEntry[] = [
    begin({}),
    begin({ at: T0 + 10, decision: "in_progress" }),
    done(T0 + 20),
    begin({ at: T0 + 20, decision: "replay", latched: true }),
    begin({ at: T0 + 5_000, decision: "replay" }),
  ];

  it("duplicates of a running attempt stay duplicates of a running attempt, and are no loop steps", () => {
    const result = simulatePolicy(history, policy(), policy());
    expect(result.verdicts.map((v) => v.simulated)).toEqual(["execute", "in_progress", "replay", "replay"]);
    expect(result.simulated).toEqual({ ...emptyTally(), executed: 1, deduped: 3 });
  });

  it("a TTL shorter than the gap expires the outcome; one a second longer changes nothing", () => {
    expect(simulatePolicy(history, policy({ ttlSeconds: 2 }), policy()).verdicts.at(-1)!.simulated).toBe("execute");
    expect(simulatePolicy(history, policy({ ttlSeconds: 86_401 }), policy()).simulated).toEqual(simulatePolicy(history, policy(), policy()).simulated);
  });

  it("another tool's steps between a run's calls break its cycles", () => {
    // The model asking again (new tool-call ids): the same id again would be a transport retry, no loop step.
    const looping = [begin({}), done(T0 + 1), begin({ at: T0 + 2, decision: "replay", toolCallId: "tc-2" }), begin({ at: T0 + 3, decision: "replay", toolCallId: "tc-3" })];
    expect(simulatePolicy(looping, policy(), policy()).simulated.blocked).toBe(1);
    const between: LedgerEntry = { type: "step", runId: "run-1", signature: { tool: "lookup", argsFingerprint: "x" } };
    const interleaved = [looping[0]!, looping[1]!, between, looping[2]!, between, looping[3]!];
    expect(simulatePolicy(interleaved, policy(), policy()).simulated.blocked).toBe(0);
  });

  it("says which calls it cannot replay, and why, instead of guessing", () => {
    const lost = { stepId: undefined, scope: undefined, args: undefined, argsKnown: false };
    const ledger: LedgerEntry[] = [
      begin({ identity: lost }),
      done(T0 + 1),
      begin({ at: T0 + 2, decision: "replay", callId: "call_0" }),
    ];
    const sameKeys = simulatePolicy(ledger, policy({ ttlSeconds: 10 }), policy());
    expect(sameKeys.unreplayable).toEqual([{ reason: UNREPLAYABLE.beforeSample, count: 1 }]);
    expect(sameKeys.simulated).toEqual({ ...emptyTally(), executed: 1 });
    const rekeyed = simulatePolicy(ledger, policy({ keyStrategy: "scope" }), policy());
    expect(rekeyed.unreplayable).toEqual([
      { reason: UNREPLAYABLE.identityLost, count: 1 },
      { reason: UNREPLAYABLE.beforeSample, count: 1 },
    ]);
    expect(simulatePolicy(ledger, policy({ ignoreFields: ["to"] }), policy()).unreplayable[0]!.reason).toBe(UNREPLAYABLE.argsLost);
  });

  it("a call the draft runs that never ran takes the outcome it was deduplicated against, and is counted as assumed", () => {
    const result = simulatePolicy(history, policy({ onDuplicate: "execute", loop: { ...DEFAULT_POLICY.loop, enabled: false } }), policy());
    expect(result.simulated.executed).toBe(4);
    // With loop detection on, always executing makes the 3rd identical step a loop.
    expect(simulatePolicy(history, policy({ onDuplicate: "execute" }), policy()).simulated).toMatchObject({ executed: 2, blocked: 2 });
    expect(result.assumedOutcomes).toBe(3);
  });
});

describe("tallyDecisions", () => {
  it("buckets the decisions actually taken", () => {
    const rows = ["execute", "verify", "replay", "in_progress", "refused", "conflict", "blocked", "approval_required", "preview_required"].map((decision) => ({ decision, loopWarned: false }));
    expect(tallyDecisions([...rows, { decision: "replay", loopWarned: true }])).toEqual({
      executed: 2,
      deduped: 3,
      refused: 1,
      conflicts: 1,
      blocked: 1,
      approvalRequired: 1,
      previewRequired: 1,
      loopWarnings: 1,
      rejected: 0,
    });
  });
});
