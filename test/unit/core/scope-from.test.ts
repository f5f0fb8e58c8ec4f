import { describe, expect, it } from "vitest";
import { deriveKey } from "../../../lib/core/keys";
import { DEFAULT_POLICY } from "../../../lib/core/policy";
import { prepareCall } from "../../../lib/core/prepare-call";
import { resolvePointer, scopeFromArgs } from "../../../lib/core/scope-from";
import { TEST_FINGERPRINTER } from "./fixtures";

const call = (args: unknown, scope: string | null = null) => ({
  projectId: "p",
  tool: "refund_order",
  runId: "key:k1",
  stepId: null,
  scope,
  toolCallId: null,
  agentId: null,
  args,
});

describe("scopeFrom: the business scope from argument fields", () => {
  it("resolves RFC 6901 pointers, escapes and array indexes included", () => {
    const doc = { orderId: "42", "a/b": { "m~n": 1 }, lines: [{ sku: "x" }] };
    expect(resolvePointer(doc, "/orderId")).toBe("42");
    expect(resolvePointer(doc, "/a~1b/m~0n")).toBe(1);
    expect(resolvePointer(doc, "/lines/0/sku")).toBe("x");
    expect(resolvePointer(doc, "/lines/01/sku")).toBeUndefined();
    expect(resolvePointer(doc, "/missing")).toBeUndefined();
    expect(resolvePointer(doc, "orderId")).toBeUndefined();
    expect(resolvePointer({}, "/__proto__")).toBeUndefined();
  });

  it("names every pointer and its value; any missing or non-scalar value gives no scope at all", () => {
    expect(scopeFromArgs({ orderId: "42", amount: 10 }, ["/orderId"])).toBe("/orderId=42");
    expect(scopeFromArgs({ orderId: 42, line: 2 }, ["/orderId", "/line"])).toBe("/orderId=42&/line=2");
    expect(scopeFromArgs({ orderId: "42" }, ["/orderId", "/line"])).toBeNull();
    expect(scopeFromArgs({ orderId: { id: 1 } }, ["/orderId"])).toBeNull();
    expect(scopeFromArgs({ orderId: "" }, ["/orderId"])).toBeNull();
    expect(scopeFromArgs({ orderId: "42" }, [])).toBeNull();
  });

  it("a paraphrased re-plan of the same order gets the same key; another order another; a named scope wins", () => {
    const policy = { ...DEFAULT_POLICY, scopeFrom: ["/orderId"] };
    const first = prepareCall(call({ orderId: "42", amount: 10, note: "customer asked" }), policy, TEST_FINGERPRINTER);
    const paraphrase = prepareCall(call({ orderId: "42", amount: "10.00", note: "refund as requested" }), policy, TEST_FINGERPRINTER);
    const other = prepareCall(call({ orderId: "43", amount: 10, note: "customer asked" }), policy, TEST_FINGERPRINTER);
    expect(first.scope).toBe("/orderId=42");
    expect(paraphrase.key).toBe(first.key);
    expect(paraphrase.argsFingerprint).not.toBe(first.argsFingerprint);
    expect(other.key).not.toBe(first.key);
    expect(prepareCall(call({ orderId: "42" }, "order:42"), policy, TEST_FINGERPRINTER).scope).toBe("order:42");
    // Without scopeFrom the paraphrase is a different call (keyed by its args).
    expect(prepareCall(call({ orderId: "42", amount: "10.00" }), DEFAULT_POLICY, TEST_FINGERPRINTER).key).not.toBe(prepareCall(call({ orderId: "42", amount: 10 }), DEFAULT_POLICY, TEST_FINGERPRINTER).key);
  });

  it("a value read through a redacted field is masked in the scope, and the key derived from it is keyed (old key kept for lookup)", () => {
    const policy = { ...DEFAULT_POLICY, keyStrategy: "scope" as const, scopeFrom: ["/account", "/auth/Pin"], redactFields: ["pin"] };
    const first = prepareCall(call({ account: "a-1", auth: { Pin: "4938" } }), policy, TEST_FINGERPRINTER);
    const same = prepareCall(call({ account: "a-1", auth: { Pin: "4938" }, note: "again" }), policy, TEST_FINGERPRINTER);
    const other = prepareCall(call({ account: "a-1", auth: { Pin: "4939" } }), policy, TEST_FINGERPRINTER);
    expect(first.scope).toMatch(/^\/account=a-1&\/auth\/Pin=\[REDACTED [0-9a-f]{16}\]$/);
    expect(first.scope).not.toContain("4938");
    expect(same.scope).toBe(first.scope);
    expect(other.scope).not.toBe(first.scope);
    const unkeyed = deriveKey("scope", { projectId: "p", runId: "key:k1", tool: "refund_order", scope: "/account=a-1&/auth/Pin=4938", canonicalArgs: "" });
    expect(first.legacyKey).toBe(unkeyed);
    expect(first.key).toBe(TEST_FINGERPRINTER.argsKey(unkeyed));
    expect(same.key).toBe(first.key);
    expect(other.key).not.toBe(first.key);
    // Nothing redacted on the way: the scope in clear, the key as before.
    const plain = prepareCall(call({ account: "a-1", auth: { Pin: "4938" } }), { ...policy, redactFields: ["password"] }, TEST_FINGERPRINTER);
    expect(plain.scope).toBe("/account=a-1&/auth/Pin=4938");
    expect([plain.key, plain.legacyKey]).toEqual([unkeyed, null]);
    // A step names the key: the scope is only shown, still masked.
    const stepped = prepareCall({ ...call({ account: "a-1", auth: { Pin: "4938" } }), stepId: "s1" }, { ...policy, keyStrategy: "step" }, TEST_FINGERPRINTER);
    expect([stepped.scope, stepped.legacyKey]).toEqual([first.scope, null]);
  });
});
