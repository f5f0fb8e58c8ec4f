import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type CallSignature, blocksOnStep, detectLoop, isLoopStep, loopHistorySize } from "../../../lib/core/loop-detector";
import { DEFAULT_POLICY } from "../../../lib/core/policy";
import type { BeginDecision } from "../../../lib/core/record";

const DEFAULTS = { repeats: DEFAULT_POLICY.loop.repeats, maxCycleLength: DEFAULT_POLICY.loop.maxCycleLength };

/** "ABAB" → four signatures; a letter is a (tool, fingerprint) pair, lower case = same tool, other args. */
function steps(text: string): CallSignature[] {
  return [...text].map((c) => ({ tool: `tool_${c.toLowerCase()}`, argsFingerprint: c === c.toLowerCase() ? "fp-lower" : "fp-upper" }));
}

const tools = (match: ReturnType<typeof detectLoop>) => match?.pattern.map((s) => s.tool);

describe("detectLoop — defaults (repeats 3, cycles up to 2)", () => {
  it.each([
    ["AA", null],
    ["AAA", ["tool_a"]],
    ["BAAA", ["tool_a"]],
    ["ABABA", null],
    ["ABABAB", ["tool_a", "tool_b"]],
    ["CABABAB", ["tool_a", "tool_b"]],
    ["ABCABCABC", null],
    ["AAB", null],
    ["ABAB", null],
    ["AABBAABB", null],
    ["", null],
  ])("%s → %j", (text, expected) => {
    expect(tools(detectLoop(steps(text), DEFAULTS)) ?? null).toEqual(expected);
  });

  it("the 1-cycle trips on its 3rd repetition, the 2-cycle on the 3rd repetition of the pair", () => {
    const one = steps("AAAA");
    expect([1, 2, 3, 4].map((n) => detectLoop(one.slice(0, n), DEFAULTS) !== null)).toEqual([false, false, true, true]);
    const two = steps("ABABAB");
    expect([1, 2, 3, 4, 5, 6].map((n) => detectLoop(two.slice(0, n), DEFAULTS) !== null)).toEqual([false, false, false, false, false, true]);
  });

  it("the same tool with other args is another signature", () => {
    expect(detectLoop(steps("AaA"), DEFAULTS)).toBeNull();
    expect(tools(detectLoop(steps("AaAaAa"), DEFAULTS))).toEqual(["tool_a", "tool_a"]);
  });

  it("reports the cycle oldest first and the configured repeats", () => {
    expect(detectLoop(steps("BABABA"), DEFAULTS)).toEqual({ pattern: steps("BA"), repeats: 3 });
  });
});

describe("detectLoop — settings", () => {
  it("a 3-cycle trips once maxCycleLength allows it", () => {
    expect(detectLoop(steps("ABCABCABC"), { repeats: 3, maxCycleLength: 2 })).toBeNull();
    expect(tools(detectLoop(steps("ABCABCABC"), { repeats: 3, maxCycleLength: 3 }))).toEqual(["tool_a", "tool_b", "tool_c"]);
  });

  it("repeats sets how many in a row", () => {
    expect(detectLoop(steps("AAA"), { repeats: 4, maxCycleLength: 2 })).toBeNull();
    expect(detectLoop(steps("AAAA"), { repeats: 4, maxCycleLength: 2 })).not.toBeNull();
    expect(detectLoop(steps("AA"), { repeats: 2, maxCycleLength: 1 })).not.toBeNull();
  });

  it("needs exactly repeats × maxCycleLength − 1 earlier steps", () => {
    expect(loopHistorySize(DEFAULTS)).toBe(5);
    expect(loopHistorySize({ repeats: 4, maxCycleLength: 3 })).toBe(11);
  });
});

describe("detectLoop — properties", () => {
  const letters = fc.array(fc.constantFrom("A", "B", "C", "D"), { maxLength: 30 }).map((a) => a.join(""));
  const settings = fc.record({ repeats: fc.integer({ min: 2, max: 5 }), maxCycleLength: fc.integer({ min: 1, max: 4 }) });

  it("only the last repeats × maxCycleLength steps matter", () => {
    fc.assert(
      fc.property(letters, letters, settings, (prefix, tail, s) => {
        const window = loopHistorySize(s) + 1;
        const all = steps(prefix + tail);
        expect(detectLoop(all, s)).toEqual(detectLoop(all.slice(-window), s));
      }),
    );
  });

  it("any cycle within the limit, repeated enough, trips, reporting a cycle no longer than it", () => {
    fc.assert(
      fc.property(letters, fc.array(fc.constantFrom("A", "B", "C"), { minLength: 1, maxLength: 4 }), settings, (prefix, cycle, s) => {
        const match = detectLoop(steps(prefix + cycle.join("").repeat(s.repeats)), s);
        if (cycle.length <= s.maxCycleLength) {
          expect(match).not.toBeNull();
          expect(match!.pattern.length).toBeLessThanOrEqual(cycle.length);
        }
      }),
    );
  });

  it("a match is always a true repetition of its pattern at the end of the steps", () => {
    fc.assert(
      fc.property(letters, settings, (text, s) => {
        const all = steps(text);
        const match = detectLoop(all, s);
        if (!match) return;
        const tail = all.slice(all.length - match.pattern.length * s.repeats);
        expect(tail).toEqual(Array.from({ length: s.repeats }, () => match.pattern).flat());
      }),
    );
  });
});

describe("isLoopStep — which begins are the agent deciding again", () => {
  const execute = (attempt: number): BeginDecision => ({
    decision: "execute",
    callId: "c",
    key: "k",
    leaseToken: "l",
    leaseExpiresAt: 0,
    attempt,
    recovered: attempt > 1,
    retry: DEFAULT_POLICY.retry,
    replayable: true,
    keepHeaders: DEFAULT_POLICY.keepHeaders,
  });
  const replay: BeginDecision = {
    decision: "replay",
    callId: "c",
    key: "k",
    status: "succeeded",
    firstSeenAt: 0,
    completedAt: 0,
    expiresAt: 0,
    replays: 1,
    argsMismatch: false,
  };

  it.each([
    ["a first execute", execute(1), false, true],
    ["a re-attempt (retry advice governs it)", execute(2), false, false],
    ["a replay", replay, false, true],
    ["a replay that waited on a live attempt (concurrent duplicate)", replay, true, false],
    ["in_progress (concurrent duplicate)", { decision: "in_progress", callId: "c", key: "k", retryAfterMs: 1, retry: DEFAULT_POLICY.retry }, false, false],
    ["refused", { decision: "refused", callId: "c", key: "k", original: { status: "succeeded", completedAt: 0 } }, false, true],
    ["conflict", { decision: "conflict", callId: "c", key: "k" }, false, true],
    ["blocked", { decision: "blocked", reason: "loop_detected", pattern: ["t"], repeats: 3 }, false, true],
    ["verify", { decision: "verify", callId: "c", key: "k", leaseToken: "l", leaseExpiresAt: 0, attempt: 2 }, false, false],
  ] as [string, BeginDecision, boolean, boolean][])("%s", (_name, decision, latched, expected) => {
    expect(isLoopStep(decision, latched)).toBe(expected);
  });
});

describe("blocksOnStep — which decision-only lines are committed with their answer", () => {
  const loop = DEFAULT_POLICY.loop;

  it("a step of a tool whose detector blocks: at once (another instance's next begin may block on it)", () => {
    expect(blocksOnStep(true, loop)).toBe(true);
  });

  it("anything else may be written behind: no step, a detector that only warns, a detector that is off", () => {
    expect(blocksOnStep(false, loop)).toBe(false);
    expect(blocksOnStep(true, { ...loop, action: "warn" })).toBe(false);
    expect(blocksOnStep(true, { ...loop, enabled: false })).toBe(false);
  });
});
