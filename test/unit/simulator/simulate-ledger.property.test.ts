import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { DEFAULT_POLICY, type ToolPolicy } from "../../../lib/core/policy";
import { simulatePolicy } from "../../../lib/core/simulate-policy";
import type { LedgerEntry } from "../../../lib/core/simulation-ledger";
import { InstallFingerprinter } from "../../../lib/server/gate/install-fingerprinter";
import { toEntries } from "../../../lib/server/policies/policy-simulator";
import { type Op, TOOL, engineHistory, opArb, play, policyArb } from "./engine-history";

let lastEntries: LedgerEntry[] = [];

/** Plays the operations on the real engine under `policy`, then replays its ledger under `draft`. */
async function decide(policy: ToolPolicy, ops: readonly Op[], drafts: ToolPolicy[]) {
  const history = await engineHistory(policy);
  try {
    await play(history, ops);
    const rows = await history.store.simulationLedger(history.projectId, TOOL, 100_000);
    const fingerprint = await new InstallFingerprinter(history.store, () => history.clock.now).load();
    const entries = toEntries(history.projectId, TOOL, policy, rows, fingerprint);
    lastEntries = entries;
    return drafts.map((draft) => simulatePolicy(entries, draft, policy, fingerprint));
  } finally {
    await history.close();
  }
}

/** One history that has every kind of decision, so coverage never rests on the generator's luck alone. */
const EVERY_KIND: [ToolPolicy, Op[]] = [
  { ...DEFAULT_POLICY, effect: "async", ttlSeconds: 60, leaseSeconds: 5, onArgsMismatch: "reject", loop: { enabled: true, repeats: 2, maxCycleLength: 1, action: "warn" } },
  [
    { op: "begin", tool: "main", run: 0, step: 1, args: 0, scope: null, bypass: null },
    { op: "begin", tool: "main", run: 0, step: 1, args: 0, scope: null, bypass: null },
    { op: "latch", attempt: 0, outcome: "succeeded" },
    { op: "again", call: 0, otherArgs: true, bypass: null },
    { op: "again", call: 0, otherArgs: false, bypass: "ask" },
    { op: "begin", tool: "main", run: 1, step: 2, args: 1, scope: null, bypass: null },
    { op: "advance", ms: 12_000 },
    { op: "begin", tool: "main", run: 1, step: 2, args: 1, scope: null, bypass: null },
    { op: "complete", attempt: 0, outcome: "failed" },
    { op: "again", call: 1, otherArgs: false, bypass: "token" },
  ],
];
const EVERY_KIND_BLOCKING: [ToolPolicy, Op[]] = [
  { ...EVERY_KIND[0], effect: "write", onDuplicate: "refuse", loop: { enabled: true, repeats: 3, maxCycleLength: 1, action: "block" } },
  [
    { op: "begin", tool: "main", run: 0, step: 1, args: 0, scope: null, bypass: null },
    { op: "complete", attempt: 0, outcome: "succeeded" },
    { op: "begin", tool: "main", run: 0, step: 1, args: 0, scope: null, bypass: null },
    { op: "begin", tool: "main", run: 0, step: 1, args: 0, scope: null, bypass: null },
  ],
];

/**
 * A step that completes a cycle under warn is flagged (a duplicate that is no step, such as a
 * waiter's replay or the same tool-call id sent again, never is): the same search under a new step
 * id, so a new tool-call id and a step of the agent's reasoning.
 */
const EVERY_KIND_WARNING: [ToolPolicy, Op[]] = [
  { ...EVERY_KIND[0], effect: "write", onDuplicate: "replay", loop: { enabled: true, repeats: 2, maxCycleLength: 1, action: "warn" } },
  [
    { op: "begin", tool: "main", run: 0, step: 1, args: 0, scope: null, bypass: null },
    { op: "complete", attempt: 0, outcome: "succeeded" },
    { op: "begin", tool: "main", run: 0, step: 2, args: 0, scope: null, bypass: null },
  ],
];

const pairs = (result: ReturnType<typeof simulatePolicy>) => result.verdicts.map((v) => [v.recorded, v.simulated, v.recordedLoopWarning, v.simulatedLoopWarning]);
const RUNS = Number(process.env.SIM_PROPERTY_RUNS ?? 40);

describe("policy simulator over histories the real engine made", () => {
  it(
    "identity: the policy in force, replayed over the calls it decided, reproduces every decision",
    async () => {
      // What the generated histories covered, so the property cannot pass on histories too plain to matter.
      const seen = new Set<string>();
      await fc.assert(
        fc.asyncProperty(policyArb, fc.array(opArb, { minLength: 5, maxLength: 45 }), async (policy, ops) => {
          const [result] = await decide(policy, ops, [policy]);
          for (const verdict of result!.verdicts) {
            seen.add(verdict.recorded);
            if (verdict.recordedLoopWarning) seen.add("loop warning");
          }
          for (const entry of lastEntries) {
            if (entry.type === "begin" && entry.latched) seen.add("latched");
            if (entry.type === "begin" && entry.bypass !== null) seen.add(`bypass ${entry.bypass}`);
            if (entry.type === "evict") seen.add("evicted");
            if (entry.type === "outcome") seen.add(entry.resolved ? "resolved" : entry.state);
            if (entry.type === "heartbeat") seen.add("heartbeat");
            if (entry.type === "step") seen.add("other tool");
          }
          expect(result!.unreplayable).toEqual([]);
          for (const verdict of result!.verdicts) {
            expect([verdict.simulated, verdict.simulatedLoopWarning]).toEqual([verdict.recorded, verdict.recordedLoopWarning]);
          }
          expect(result!.simulated).toEqual(result!.actual);
        }),
        { numRuns: RUNS, examples: [EVERY_KIND, EVERY_KIND_BLOCKING, EVERY_KIND_WARNING] },
      );
      expect([...seen].sort()).toEqual(
        expect.arrayContaining(["approval_required", "blocked", "conflict", "execute", "in_progress", "latched", "loop warning", "refused", "replay", "verify"]),
      );
      console.log("covered:", [...seen].sort().join(", "));
    },
    300_000,
  );

  it(
    "locality: fields no decision reads (retry advice, storm detection, redaction) change nothing",
    async () => {
      await fc.assert(
        fc.asyncProperty(policyArb, fc.array(opArb, { minLength: 5, maxLength: 40 }), async (policy, ops) => {
          const drafts: ToolPolicy[] = [
            { ...policy, retry: { ...policy.retry, maxAttempts: 7, initialDelayMs: 50 } },
            { ...policy, storm: { windowSeconds: 10, minHits: 3, factor: 2, absoluteMinHits: 5, absoluteDedupRate: 0.5 } },
            { ...policy, redactFields: ["order"] },
          ];
          const [before, ...after] = await decide(policy, ops, [policy, ...drafts]);
          for (const result of after) expect(pairs(result)).toEqual(pairs(before!));
        }),
        { numRuns: Math.ceil(RUNS / 2) },
      );
    },
    300_000,
  );

  it(
    "locality: a TTL edit changes nothing for calls inside both the old and the new TTL",
    async () => {
      // Histories spanning less than either TTL: no outcome expires under either.
      const short = opArb.filter((op) => op.op !== "advance" || op.ms <= 3_000);
      await fc.assert(
        fc.asyncProperty(policyArb, fc.array(short, { minLength: 5, maxLength: 40 }), fc.constantFrom(1, 30, 86_400), async (policy, ops, delta) => {
          const wide = { ...policy, ttlSeconds: 86_400 };
          const [before, after] = await decide(wide, ops, [wide, { ...wide, ttlSeconds: wide.ttlSeconds + delta }]);
          expect(pairs(after!)).toEqual(pairs(before!));
        }),
        { numRuns: Math.ceil(RUNS / 2) },
      );
    },
    300_000,
  );

  it(
    "locality: replay → refuse (no loop detection) turns exactly the replays into refusals",
    async () => {
      await fc.assert(
        fc.asyncProperty(policyArb, fc.array(opArb, { minLength: 5, maxLength: 40 }), async (generated, ops) => {
          const policy: ToolPolicy = { ...generated, effect: "write", onDuplicate: "replay", loop: { ...generated.loop, enabled: false } };
          const [before, after] = await decide(policy, ops, [policy, { ...policy, onDuplicate: "refuse" }]);
          const expected = pairs(before!).map(([recorded, simulated, ...warn]) => [recorded, simulated === "replay" ? "refused" : simulated, ...warn]);
          expect(pairs(after!)).toEqual(expected);
        }),
        { numRuns: Math.ceil(RUNS / 2) },
      );
    },
    300_000,
  );
});

/** Budgets drafted on a policy: small limits, so runs of the generated histories reach them. */
const budgetArb = fc.oneof(
  fc.record({ maxCallsPerRun: fc.constantFrom(1, 2, 3), maxCostPerRun: fc.constant(null), currency: fc.constant("USD"), costPerExecution: fc.constantFrom(0, 1) }),
  fc.record({ maxCallsPerRun: fc.constant(null), maxCostPerRun: fc.constantFrom(1, 2.5), currency: fc.constant("USD"), costPerExecution: fc.constantFrom(0.5, 1) }),
);

describe("policy simulator: budgets, against the real engine", () => {
  it(
    "identity under a budget: the engine's budget_exceeded blocks are reproduced, and nothing else moves",
    async () => {
      let blocks = 0;
      await fc.assert(
        fc.asyncProperty(policyArb, budgetArb, fc.array(opArb, { minLength: 5, maxLength: 45 }), async (generated, budget, ops) => {
          const policy: ToolPolicy = { ...generated, budget };
          const [result] = await decide(policy, ops, [policy]);
          expect(result!.unreplayable).toEqual([]);
          for (const verdict of result!.verdicts) {
            expect([verdict.simulated, verdict.simulatedLoopWarning]).toEqual([verdict.recorded, verdict.recordedLoopWarning]);
          }
          blocks += lastEntries.filter((e) => e.type === "begin" && e.decision === "blocked").length;
        }),
        { numRuns: RUNS },
      );
      // The histories reached their budgets: the property is not about histories too short to matter.
      expect(blocks).toBeGreaterThan(0);
    },
    300_000,
  );

  it("a drafted budget blocks exactly the begins the engine blocks when the budget is in force", async () => {
    const policy: ToolPolicy = { ...DEFAULT_POLICY, ttlSeconds: 60, leaseSeconds: 5, loop: { ...DEFAULT_POLICY.loop, enabled: false } };
    const budgeted: ToolPolicy = { ...policy, budget: { maxCallsPerRun: 2, maxCostPerRun: null, currency: "USD", costPerExecution: 0 } };
    const main = (run: number, step: number) => ({ op: "begin" as const, tool: "main" as const, run, step, args: step, scope: null, bypass: null });
    const ops: Op[] = [
      main(0, 1),
      { op: "complete", attempt: 0, outcome: "succeeded" },
      // A replay of a paid step costs nothing.
      main(0, 1),
      main(0, 2),
      { op: "complete", attempt: 0, outcome: "released" },
      // The retry of a released call is the same call: counted once.
      main(0, 2),
      { op: "complete", attempt: 0, outcome: "succeeded" },
      main(0, 0),
      main(1, 1),
    ];
    // The draft over the history made without a budget…
    const [simulated] = await decide(policy, ops, [budgeted]);
    // …and the engine deciding the same calls with the budget in force.
    const [engine] = await decide(budgeted, ops, [budgeted]);
    const drafted = simulated!.verdicts.map((v) => v.simulated);
    const decided = engine!.verdicts.map((v) => v.recorded);
    expect(drafted).toEqual(["execute", "replay", "execute", "execute", "blocked", "execute"]);
    expect(decided).toEqual(drafted);
    expect(simulated!.simulated.blocked).toBe(1);
    expect(simulated!.actual.blocked).toBe(0);
  }, 60_000);
});
