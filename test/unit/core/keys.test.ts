import { describe, it, expect } from "vitest";
import fc from "fast-check";
import { canonicalize } from "../../../lib/core/canonical";
import { deriveKey, KeyDerivationError, type KeyInput } from "../../../lib/core/keys";
import { DEFAULT_POLICY, type KeyStrategy } from "../../../lib/core/policy";
import { prepareCall } from "../../../lib/core/prepare-call";
import { argsFingerprinter } from "../../../lib/core/fingerprint";
import { TEST_FINGERPRINTER } from "./fixtures";

const BASE: KeyInput = {
  projectId: "proj-1",
  runId: "run-1",
  tool: "charge_card",
  stepId: "charge-customer",
  scope: "order:123",
  toolCallId: "toolu_01",
  canonicalArgs: canonicalize({ amount: 4200, currency: "EUR" }),
};

/** One change per field, each to a value different from BASE. */
const CHANGES: Record<string, Partial<KeyInput>> = {
  projectId: { projectId: "proj-2" },
  runId: { runId: "run-2" },
  tool: { tool: "refund_card" },
  stepId: { stepId: "charge-customer-again" },
  scope: { scope: "order:124" },
  toolCallId: { toolCallId: "toolu_02" },
  args: { canonicalArgs: canonicalize({ amount: 4300, currency: "EUR" }) },
};
type Field = keyof typeof CHANGES;
const ALL_FIELDS = Object.keys(CHANGES) as Field[];

interface Case {
  name: string;
  strategy: KeyStrategy;
  base: KeyInput;
  changes: Field[];
}

const CASES: Case[] = [
  { name: "step with stepId", strategy: "step", base: BASE, changes: ["projectId", "runId", "tool", "stepId"] },
  { name: "step with scope only", strategy: "step", base: { ...BASE, stepId: null }, changes: ["projectId", "runId", "tool", "scope"] },
  { name: "step with neither (falls back to args)", strategy: "step", base: { ...BASE, stepId: null, scope: null }, changes: ["projectId", "runId", "tool", "args"] },
  { name: "scope", strategy: "scope", base: BASE, changes: ["projectId", "tool", "scope"] },
  { name: "args", strategy: "args", base: BASE, changes: ["projectId", "runId", "tool", "args"] },
  { name: "toolCallId", strategy: "toolCallId", base: BASE, changes: ["projectId", "runId", "tool", "toolCallId"] },
];

describe("deriveKey — which inputs make up the key", () => {
  for (const c of CASES) {
    describe(c.name, () => {
      const key = deriveKey(c.strategy, c.base);
      for (const field of ALL_FIELDS) {
        // In the fallback cases, setting a field the fallback skips would switch branches; only
        // change fields that are already present (or the args).
        if (c.base[field as keyof KeyInput] === null) continue;
        const expected = c.changes.includes(field);
        it(`${expected ? "changes" : "keeps"} the key when ${field} changes`, () => {
          const changed = deriveKey(c.strategy, { ...c.base, ...CHANGES[field] });
          if (expected) expect(changed).not.toBe(key);
          else expect(changed).toBe(key);
        });
      }
      it("is a deterministic 64-char hex sha256", () => {
        expect(key).toMatch(/^[0-9a-f]{64}$/);
        expect(deriveKey(c.strategy, { ...c.base })).toBe(key);
      });
    });
  }

  it("step strategy: stepId wins over scope, and scope over args", () => {
    const withStep = deriveKey("step", BASE);
    expect(deriveKey("step", { ...BASE, scope: null })).toBe(withStep);
    const withScope = deriveKey("step", { ...BASE, stepId: null });
    expect(withScope).not.toBe(withStep);
    expect(deriveKey("step", { ...BASE, stepId: undefined, canonicalArgs: "{}" })).toBe(withScope);
  });

  it("a stepId spelled like a scope does not collide with that scope", () => {
    const asStep = deriveKey("step", { ...BASE, stepId: "order:123", scope: null });
    const asScope = deriveKey("step", { ...BASE, stepId: null, scope: "order:123" });
    expect(asStep).not.toBe(asScope);
  });

  it("the same tuple under different strategies gives different keys", () => {
    const keys = (["step", "scope", "args", "toolCallId"] as KeyStrategy[]).map((s) => deriveKey(s, BASE));
    expect(new Set(keys).size).toBe(4);
    // step-without-step-or-scope and args cover the same fields, yet stay apart
    const noStep = { ...BASE, stepId: null, scope: null };
    expect(deriveKey("step", noStep)).not.toBe(deriveKey("args", noStep));
    // a toolCallId spelled like the canonical args does not collide with an args key
    const same = { ...BASE, toolCallId: BASE.canonicalArgs };
    expect(deriveKey("toolCallId", same)).not.toBe(deriveKey("args", same));
  });
});

describe("deriveKey — missing components", () => {
  for (const missing of [null, undefined, ""]) {
    it(`scope strategy without a scope (${JSON.stringify(missing)}) throws KeyDerivationError`, () => {
      const fn = () => deriveKey("scope", { ...BASE, scope: missing });
      expect(fn).toThrow(KeyDerivationError);
      try {
        fn();
      } catch (err) {
        expect((err as KeyDerivationError).field).toBe("scope");
        expect((err as Error).name).toBe("KeyDerivationError");
        expect((err as Error).message).toContain("charge_card");
      }
    });
    it(`toolCallId strategy without a toolCallId (${JSON.stringify(missing)}) throws KeyDerivationError`, () => {
      const fn = () => deriveKey("toolCallId", { ...BASE, toolCallId: missing });
      expect(fn).toThrow(KeyDerivationError);
      expect(fn).toThrow(expect.objectContaining({ field: "toolCallId" }));
    });
  }

  it("step and args strategies never throw for missing optional ids", () => {
    const bare = { ...BASE, stepId: null, scope: null, toolCallId: null };
    expect(() => deriveKey("step", bare)).not.toThrow();
    expect(() => deriveKey("args", bare)).not.toThrow();
  });
});

describe("deriveKey — isolation and ambiguity", () => {
  const strategies: KeyStrategy[] = ["step", "scope", "args", "toolCallId"];
  const id = fc.string({ minLength: 1, maxLength: 12 });

  it("different projects never collide, whatever the other fields", () => {
    fc.assert(
      fc.property(fc.constantFrom(...strategies), id, id, id, id, id, (strategy, p1, p2, run, tool, other) => {
        fc.pre(p1 !== p2);
        const input = { ...BASE, runId: run, tool, stepId: other, scope: other, toolCallId: other, canonicalArgs: JSON.stringify(other) };
        expect(deriveKey(strategy, { ...input, projectId: p1 })).not.toBe(deriveKey(strategy, { ...input, projectId: p2 }));
      }),
      { numRuns: 200 },
    );
  });

  it('("a","bc") and ("ab","c") split across fields give different keys', () => {
    const pairs: [KeyStrategy, keyof KeyInput, keyof KeyInput][] = [
      ["step", "projectId", "runId"],
      ["step", "runId", "tool"],
      ["step", "tool", "stepId"],
      ["scope", "projectId", "tool"],
      ["scope", "tool", "scope"],
      ["args", "tool", "canonicalArgs"],
      ["toolCallId", "tool", "toolCallId"],
    ];
    for (const [strategy, f1, f2] of pairs) {
      const a = deriveKey(strategy, { ...BASE, [f1]: "a", [f2]: "bc" });
      const b = deriveKey(strategy, { ...BASE, [f1]: "ab", [f2]: "c" });
      expect(a, `${strategy}: ${f1}/${f2}`).not.toBe(b);
    }
  });

  it("any re-split of the same characters across two adjacent fields gives a different key", () => {
    const text = fc.string({ minLength: 2, maxLength: 16, unit: fc.constantFrom("a", "|", ":", ",", '"', "\\", "/", " ") });
    fc.assert(
      fc.property(text, fc.nat(), fc.nat(), (s, i0, j0) => {
        const i = 1 + (i0 % (s.length - 1));
        const j = 1 + (j0 % (s.length - 1));
        fc.pre(i !== j);
        const k1 = deriveKey("toolCallId", { ...BASE, tool: s.slice(0, i), toolCallId: s.slice(i) });
        const k2 = deriveKey("toolCallId", { ...BASE, tool: s.slice(0, j), toolCallId: s.slice(j) });
        expect(k1).not.toBe(k2);
      }),
      { numRuns: 200 },
    );
  });

  it("separator and quote injection in ids cannot forge another tuple", () => {
    const a = deriveKey("args", { ...BASE, projectId: 'p","run-1', runId: "x" });
    const b = deriveKey("args", { ...BASE, projectId: "p", runId: 'run-1","x' });
    expect(a).not.toBe(b);
  });
});

describe("prepareCall — keys from real requests", () => {
  const call = {
    projectId: "proj-1",
    tool: "send_email",
    runId: "run-1",
    stepId: null,
    scope: null,
    toolCallId: "toolu_01",
    agentId: null,
    args: { to: "a@x.io", body: "hi", request_id: "r-1" },
  };

  it("step strategy without step or scope survives key reordering and volatile ids", () => {
    const a = prepareCall(call, DEFAULT_POLICY, TEST_FINGERPRINTER);
    const b = prepareCall({ ...call, toolCallId: "toolu_99", args: { request_id: "r-2", body: "hi", to: "a@x.io" } }, DEFAULT_POLICY, TEST_FINGERPRINTER);
    expect(b.key).toBe(a.key);
    expect(b.argsFingerprint).toBe(a.argsFingerprint);
    expect(a.strategy).toBe("step");
  });

  it("the policy's ignoreFields feed the key as well as the fingerprint", () => {
    const policy = { ...DEFAULT_POLICY, keyStrategy: "args" as const, ignoreFields: ["body"] };
    const a = prepareCall(call, policy, TEST_FINGERPRINTER);
    const b = prepareCall({ ...call, args: { ...call.args, body: "hello" } }, policy, TEST_FINGERPRINTER);
    expect(b.key).toBe(a.key);
    expect(b.argsFingerprint).toBe(a.argsFingerprint);
    const c = prepareCall({ ...call, args: { ...call.args, to: "b@x.io" } }, policy, TEST_FINGERPRINTER);
    expect(c.key).not.toBe(a.key);
    expect(c.argsFingerprint).not.toBe(a.argsFingerprint);
  });

  it("stepId key is stable across paraphrased args, but the fingerprint sees the change", () => {
    const a = prepareCall({ ...call, stepId: "welcome-mail" }, DEFAULT_POLICY, TEST_FINGERPRINTER);
    const b = prepareCall({ ...call, stepId: "welcome-mail", args: { to: "a@x.io", body: "Hello!" } }, DEFAULT_POLICY, TEST_FINGERPRINTER);
    expect(b.key).toBe(a.key);
    expect(b.argsFingerprint).not.toBe(a.argsFingerprint);
  });

  it("redacts argsText but fingerprints the real args", () => {
    const policy = { ...DEFAULT_POLICY, redactFields: ["body"] };
    const a = prepareCall(call, policy, TEST_FINGERPRINTER);
    const b = prepareCall({ ...call, args: { ...call.args, body: "other" } }, policy, TEST_FINGERPRINTER);
    expect(a.argsText).toBe(JSON.stringify({ to: "a@x.io", body: "[REDACTED]", request_id: "r-1" }));
    expect(a.argsFingerprint).not.toBe(b.argsFingerprint);
    expect(prepareCall({ ...call, args: undefined }, policy, TEST_FINGERPRINTER).argsText).toBeNull();
  });

  it("a key that is a digest of the args is keyed with the install's secret; the unkeyed one is kept only to look up older records", () => {
    const other = argsFingerprinter("another-install");
    for (const [policy, input] of [
      [{ ...DEFAULT_POLICY, keyStrategy: "args" as const }, call],
      [DEFAULT_POLICY, call],
    ] as const) {
      const a = prepareCall(input, policy, TEST_FINGERPRINTER);
      const digest = deriveKey(policy.keyStrategy, { ...input, canonicalArgs: canonicalize(input.args) });
      expect(a.legacyKey).toBe(digest);
      expect(a.key).not.toBe(digest);
      expect(prepareCall(input, policy, other).key).not.toBe(a.key);
    }
    // Keys of ids only are what they were: there is no secret in them to guess.
    for (const [policy, input] of [
      [DEFAULT_POLICY, { ...call, stepId: "welcome-mail" }],
      [{ ...DEFAULT_POLICY, keyStrategy: "scope" as const }, { ...call, scope: "order:1" }],
      [{ ...DEFAULT_POLICY, keyStrategy: "toolCallId" as const }, call],
    ] as const) {
      const a = prepareCall(input, policy, TEST_FINGERPRINTER);
      expect(a.legacyKey).toBeNull();
      expect(a.key).toBe(deriveKey(policy.keyStrategy, { ...input, canonicalArgs: canonicalize(input.args) }));
    }
  });

  it("propagates KeyDerivationError for a scope tool called without scope", () => {
    expect(() => prepareCall(call, { ...DEFAULT_POLICY, keyStrategy: "scope" }, TEST_FINGERPRINTER)).toThrow(KeyDerivationError);
  });
});
