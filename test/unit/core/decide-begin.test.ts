import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { CALL_KINDS, type CallKind, GUARD_ORDER, GUARD_TABLE, type Guard, kindOf } from "../../../lib/core/begin-guards";
import type { BudgetStatus } from "../../../lib/core/budget";
import { type BeginFacts, type BeginStep, decideBegin } from "../../../lib/core/decide-begin";
import type { ToolPolicy } from "../../../lib/core/policy";
import type { CallRecord } from "../../../lib/core/record";
import { NOW, SECOND, makeCall, makeRecord, policyWith, succeededRecord } from "./fixtures";

const SPENT: BudgetStatus = { exceeded: "calls", calls: 1, maxCalls: 1, spent: 0, maxCost: null, currency: "USD" };
const LOOP = { pattern: [{ tool: "charge_card", argsFingerprint: "fp" }], repeats: 3 };

function facts(overrides: Partial<BeginFacts> = {}, policy: Partial<ToolPolicy> = {}): BeginFacts {
  const effective = policyWith(policy);
  return {
    kind: "forward",
    policy: effective,
    call: makeCall({}, effective.policy),
    record: null,
    loop: null,
    runAborted: false,
    approvalRequest: null,
    bypass: null,
    previewToken: false,
    previewSpent: false,
    budgetRefused: null,
    latched: false,
    waitUntil: 0,
    now: NOW,
    newCallId: "call-new",
    newLeaseToken: (id, attempt) => `lease-${id}-${attempt}`,
    ...overrides,
  };
}

const outcome = (step: BeginStep) => (step.step === "wait" ? "wait" : step.answer.decision === "blocked" ? `blocked:${step.answer.reason}` : "reason" in step.answer ? `refused:${step.answer.reason}` : step.answer.decision);

/**
 * Each guard, tripped on its own, for each kind of call: the guard's answer where the table says it
 * applies, an execution where it does not. (dedupe: a completed record replays, or runs again.)
 */
const TRIPPED: Record<Guard, { facts: Partial<BeginFacts>; policy: Partial<ToolPolicy>; blocked: string }> = {
  run_aborted: { facts: { runAborted: true }, policy: {}, blocked: "refused:run_aborted" },
  dedupe: { facts: { record: succeededRecord() }, policy: {}, blocked: "replay" },
  loop: { facts: { loop: LOOP }, policy: {}, blocked: "blocked:loop_detected" },
  preview: { facts: {}, policy: { preview: "required" }, blocked: "preview_required" },
  budget: { facts: { budgetRefused: SPENT }, policy: { budget: { maxCallsPerRun: 1, maxCostPerRun: null, currency: "USD", costPerExecution: 0 } }, blocked: "blocked:budget_exceeded" },
};

describe("decideBegin: the clause table (each guard × each kind of call)", () => {
  for (const guard of GUARD_ORDER) {
    for (const kind of CALL_KINDS) {
      const applies = GUARD_TABLE[guard][kind];
      it(`${guard} × ${kind}: ${applies ? "applies" : "does not apply"}`, () => {
        const tripped = TRIPPED[guard];
        // A preview kind presents its token: only a spent one would not stop it (the redemption is the guard).
        const base = kind === "preview" && guard === "preview" ? { previewToken: false } : {};
        const step = decideBegin(facts({ kind, ...tripped.facts, ...base }, { ...(kind === "read" ? { effect: "read" as const } : {}), ...tripped.policy }));
        expect(outcome(step)).toBe(applies ? tripped.blocked : "execute");
      });
    }
  }

  it("the table covers every guard and kind, in the documented order", () => {
    expect(Object.keys(GUARD_TABLE).sort()).toEqual([...GUARD_ORDER].sort());
    for (const guard of GUARD_ORDER) expect(Object.keys(GUARD_TABLE[guard]).sort()).toEqual([...CALL_KINDS].sort());
  });

  it("kinds: an undo is an undo whatever its tool's effect; reads, resends and previews follow", () => {
    const base = { effect: "write" as const, undo: false, resent: false, previewToken: false };
    expect(kindOf(base)).toBe("forward");
    expect(kindOf({ ...base, undo: true, effect: "read" })).toBe("undo");
    expect(kindOf({ ...base, effect: "read", resent: true })).toBe("read");
    expect(kindOf({ ...base, resent: true, previewToken: true })).toBe("resend");
    expect(kindOf({ ...base, previewToken: true })).toBe("preview");
  });
});

describe("decideBegin: clauses", () => {
  it("a resend in a loop is flagged, never blocked; a forward step is blocked", () => {
    const resend = decideBegin(facts({ kind: "resend", loop: LOOP }));
    expect(resend).toMatchObject({ step: "write", answer: { decision: "execute", loopWarning: { reason: "loop_detected" } }, line: { loopStep: false } });
    expect(outcome(decideBegin(facts({ loop: LOOP })))).toBe("blocked:loop_detected");
  });

  it("under warn, a step in a loop is flagged; a duplicate that is no step (a waiter's replay, a transport retry) is not", () => {
    const warn = { loop: { enabled: true, repeats: 3, maxCycleLength: 2, action: "warn" as const } };
    const step = decideBegin(facts({ loop: LOOP, record: succeededRecord({ toolCallId: "toolu_earlier" }) }, warn));
    expect(step).toMatchObject({ answer: { decision: "replay", loopWarning: { reason: "loop_detected" } }, line: { loopStep: true } });
    const waiter = decideBegin(facts({ loop: LOOP, record: succeededRecord({ toolCallId: "toolu_earlier" }), latched: true }, warn));
    expect(waiter).toMatchObject({ answer: { decision: "replay" }, line: { loopStep: false } });
    expect(waiter.step === "answer" || waiter.step === "write" ? waiter.answer : null).not.toHaveProperty("loopWarning");
  });

  it("a concurrent duplicate, a poll of an accepted operation and a transport retry are no loop steps: never blocked", () => {
    const live = makeRecord({ leaseExpiresAt: NOW + 20 * SECOND });
    expect(outcome(decideBegin(facts({ loop: LOOP, record: live })))).toBe("in_progress");
    const accepted = succeededRecord({ state: "accepted", result: JSON.stringify({ operationId: "op-1" }) });
    expect(outcome(decideBegin(facts({ loop: LOOP, record: accepted, call: makeCall({ toolCallId: "other" }) })))).toBe("replay");
    expect(outcome(decideBegin(facts({ loop: LOOP, record: succeededRecord() })))).toBe("replay");
    expect(outcome(decideBegin(facts({ loop: LOOP, record: succeededRecord(), call: makeCall({ toolCallId: "other" }) })))).toBe("blocked:loop_detected");
  });

  it("waits on a live attempt while the begin may, never in shadow mode", () => {
    const live = makeRecord({ leaseExpiresAt: NOW + 20 * SECOND });
    expect(decideBegin(facts({ record: live, waitUntil: NOW + 1_000 }))).toEqual({ step: "wait", untilMs: NOW + 1_000 });
    expect(decideBegin(facts({ record: live, waitUntil: NOW + 1_000 }, { mode: "shadow" }))).toMatchObject({ step: "write", answer: { decision: "execute", shadowDecision: "would_wait" } });
  });

  it("a first execution under a budget is charged (enforced); a retry of the same record is not", () => {
    const budget = { maxCallsPerRun: 2, maxCostPerRun: null, currency: "USD", costPerExecution: 0 };
    expect(decideBegin(facts({}, { budget }))).toMatchObject({ step: "write", charge: { calls: 1, enforce: true } });
    const released = makeRecord({ state: "released", leaseExpiresAt: null });
    expect(decideBegin(facts({ record: released }, { budget }))).toMatchObject({ step: "write", charge: null });
  });

  it("an approval still pending answers approval_required before any other guard", () => {
    expect(outcome(decideBegin(facts({ approvalRequest: "rr_1", runAborted: true, loop: LOOP })))).toBe("approval_required");
  });
});

/** Records a begin may find: none, live, expired, released, completed, accepted. */
const recordArb: fc.Arbitrary<CallRecord | null> = fc.oneof(
  fc.constant(null),
  fc.constant(makeRecord({ leaseExpiresAt: NOW + 20 * SECOND })),
  fc.constant(makeRecord({ leaseExpiresAt: NOW - 1 })),
  fc.constant(makeRecord({ state: "released", leaseExpiresAt: null })),
  fc.constant(succeededRecord()),
  fc.constant(succeededRecord({ state: "failed", result: null, error: JSON.stringify({ message: "no", retryable: false }) })),
  fc.constant(succeededRecord({ state: "accepted", result: JSON.stringify({ operationId: "op" }) })),
);

const factsArb = fc
  .record({
    kind: fc.constantFrom<CallKind>(...CALL_KINDS),
    record: recordArb,
    loop: fc.option(fc.constant(LOOP), { nil: null }),
    runAborted: fc.boolean(),
    previewToken: fc.boolean(),
    budgetRefused: fc.option(fc.constant(SPENT), { nil: null }),
    latched: fc.boolean(),
    waitUntil: fc.constantFrom(0, NOW + 1_000),
    toolCallId: fc.constantFrom("toolu_01", "toolu_02"),
    onDuplicate: fc.constantFrom<ToolPolicy["onDuplicate"]>("replay", "refuse", "execute"),
    preview: fc.constantFrom<ToolPolicy["preview"]>("none", "required"),
    loopAction: fc.constantFrom<"block" | "warn">("block", "warn"),
    budgeted: fc.boolean(),
  })
  .map((g) => {
    const policy: Partial<ToolPolicy> = {
      effect: g.kind === "read" ? "read" : "write",
      onDuplicate: g.onDuplicate,
      preview: g.preview,
      loop: { ...policyWith({}).policy.loop, action: g.loopAction },
      ...(g.budgeted ? { budget: { maxCallsPerRun: 1, maxCostPerRun: null, currency: "USD", costPerExecution: 0 } } : {}),
    };
    const effective = policyWith(policy);
    return facts({ ...g, call: makeCall({ toolCallId: g.toolCallId }, effective.policy) }, policy);
  });

describe("decideBegin: properties", () => {
  it("undos and reads are never blocked, refused for an abort, or asked for a budget; resends never blocked by a loop", () => {
    fc.assert(
      fc.property(factsArb, (f) => {
        const step = decideBegin(f);
        const name = outcome(step);
        if (f.kind === "undo" || f.kind === "read") {
          expect(name).not.toMatch(/^blocked:loop|^refused:run_aborted/);
          if (step.step !== "wait") expect(step.line.loopStep).toBe(false);
        }
        if (f.kind === "undo") expect(name).not.toBe("blocked:budget_exceeded");
        if (f.kind === "resend") expect(name).not.toBe("blocked:loop_detected");
      }),
    );
  });

  it("a forward step or a preview in an aborted run is refused, whatever else holds (except an approval still pending)", () => {
    fc.assert(
      fc.property(factsArb, (f) => {
        if (!f.runAborted || (f.kind !== "forward" && f.kind !== "preview")) return;
        expect(outcome(decideBegin(f))).toBe("refused:run_aborted");
      }),
    );
  });

  it("shadow mode is a mapping: enforce's answer, recorded as would_…, and the call always runs", () => {
    fc.assert(
      fc.property(factsArb, (f) => {
        const shadow = decideBegin({ ...f, policy: { ...f.policy, policy: { ...f.policy.policy, mode: "shadow" } }, waitUntil: 0 });
        const enforcedNow = decideBegin({ ...f, waitUntil: 0 });
        expect(shadow.step).toBe("write");
        if (shadow.step !== "write" || enforcedNow.step === "wait") return;
        expect(shadow.answer.decision).toBe("execute");
        const would = enforcedNow.answer.decision;
        const expected = { execute: "would_execute", replay: "would_replay", in_progress: "would_wait", verify: "would_verify", refused: "would_refuse", conflict: "would_conflict", approval_required: "would_require_approval", preview_required: "would_require_preview", blocked: "would_block" }[would];
        expect(shadow.line.shadowDecision).toBe(expected);
        // The loop detector counts what enforce would have counted.
        expect(shadow.line.loopStep).toBe(enforcedNow.line.loopStep);
        // What enforce would charge, shadow charges the same (so the same begins fit the run's budget).
        if (would === "execute" && enforcedNow.step === "write") expect(shadow.charge).toEqual(enforcedNow.charge);
        else expect(shadow.charge).toBeNull();
        expect(shadow.redeemPreview).toBe(false);
      }),
    );
  });

  it("no clock, no ids: the same facts decide the same step", () => {
    fc.assert(
      fc.property(factsArb, (f) => {
        expect(decideBegin(f)).toEqual(decideBegin(f));
      }),
    );
  });
});
