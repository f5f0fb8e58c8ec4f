import { describe, expect, it } from "vitest";
import { DEFAULT_POLICY, type ToolPolicy } from "../../../lib/core/policy";
import { type PastCall, emptyTally, simulatePolicy, tallyDecisions } from "../../../lib/core/simulate-policy";

const T0 = 1_700_000_000_000;

function call(overrides: Partial<PastCall>, i: number): PastCall {
  return {
    projectId: "p",
    tool: "send_email",
    runId: "run-1",
    stepId: "notify",
    scope: null,
    toolCallId: `tc-${i}`,
    agentId: null,
    args: { to: "a@example.com" },
    at: T0 + i * 1_000,
    outcome: "succeeded",
    ...overrides,
  };
}

const policy = (overrides: Partial<ToolPolicy>): ToolPolicy => ({ ...DEFAULT_POLICY, ...overrides });
const noLoop = { ...DEFAULT_POLICY.loop, enabled: false };

describe("simulatePolicy — the real planner over past calls, in order", () => {
  const twice = [call({}, 0), call({}, 1)];

  it("replay dedupes, refuse refuses, execute always runs", () => {
    expect(simulatePolicy(twice, policy({}))).toEqual({ ...emptyTally(), executed: 1, deduped: 1 });
    expect(simulatePolicy(twice, policy({ onDuplicate: "refuse" }))).toEqual({ ...emptyTally(), executed: 1, refused: 1 });
    expect(simulatePolicy(twice, policy({ onDuplicate: "execute" }))).toEqual({ ...emptyTally(), executed: 2 });
    expect(simulatePolicy(twice, policy({ effect: "read" }))).toEqual({ ...emptyTally(), executed: 2 });
  });

  it("the key strategy decides what collides", () => {
    const otherSteps = [call({ stepId: "a" }, 0), call({ stepId: "b" }, 1)];
    expect(simulatePolicy(otherSteps, policy({})).executed).toBe(2);
    expect(simulatePolicy(otherSteps, policy({ keyStrategy: "args" })).deduped).toBe(1);
    expect(simulatePolicy(twice, policy({ keyStrategy: "toolCallId" })).executed).toBe(2);
    expect(simulatePolicy(twice, policy({ keyStrategy: "scope" })).rejected).toBe(2);
  });

  it("args mismatch under reject is a conflict; ttl expiry executes again", () => {
    const changed = [call({}, 0), call({ args: { to: "b@example.com" } }, 1)];
    expect(simulatePolicy(changed, policy({ onArgsMismatch: "reject" })).conflicts).toBe(1);
    const late = [call({}, 0), call({ at: T0 + 10_000 }, 1)];
    expect(simulatePolicy(late, policy({ ttlSeconds: 5 })).executed).toBe(2);
  });

  it("cached failures replay unless cacheFailures is off", () => {
    const failing = [call({ outcome: "failed" }, 0), call({ outcome: "failed" }, 1)];
    expect(simulatePolicy(failing, policy({ loop: noLoop })).deduped).toBe(1);
    expect(simulatePolicy(failing, policy({ cacheFailures: false, loop: noLoop })).executed).toBe(2);
  });

  it("a run repeating the same call is blocked (or only flagged) from the 3rd time", () => {
    const thrice = [0, 1, 2, 3].map((i) => call({}, i));
    expect(simulatePolicy(thrice, policy({}))).toEqual({ ...emptyTally(), executed: 1, deduped: 1, blocked: 2 });
    expect(simulatePolicy(thrice, policy({ loop: { ...DEFAULT_POLICY.loop, action: "warn" } }))).toEqual({
      ...emptyTally(),
      executed: 1,
      deduped: 3,
      loopWarnings: 2,
    });
    const otherRuns = [0, 1, 2, 3].map((i) => call({ runId: `run-${i % 2}` }, i));
    expect(simulatePolicy(otherRuns, policy({})).blocked).toBe(0);
  });
});

describe("tallyDecisions", () => {
  it("buckets the decisions actually taken", () => {
    const rows = ["execute", "verify", "replay", "in_progress", "refused", "conflict", "blocked"].map((decision) => ({ decision, loopWarned: false }));
    expect(tallyDecisions([...rows, { decision: "replay", loopWarned: true }])).toEqual({
      executed: 2,
      deduped: 3,
      refused: 1,
      conflicts: 1,
      blocked: 1,
      loopWarnings: 1,
      rejected: 0,
    });
  });
});
