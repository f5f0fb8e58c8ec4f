import { describe, expect, it } from "vitest";
import { PolicyOverridesSchema, ToolPolicySchema } from "../../../lib/contract/policy";
import { DEFAULT_POLICY } from "../../../lib/core/policy";
import { diffOverrides, leafPaths, mergePolicy, resolvePolicy } from "../../../lib/core/resolve-policy";

describe("the policy schema", () => {
  it("accepts DEFAULT_POLICY as a complete policy", () => {
    expect(ToolPolicySchema.parse(DEFAULT_POLICY)).toEqual(DEFAULT_POLICY);
  });

  it("rejects unknown, mistyped and out-of-range fields in a layer", () => {
    for (const bad of [
      { onDuplicates: "refuse" },
      { effect: "delete" },
      { ttlSeconds: 0 },
      { leaseSeconds: 1.5 },
      { retry: { maxAttempts: 0 } },
      { retry: { jitter: true } },
      { loop: { repeats: 1 } },
      { ignoreFields: ["ok", ""] },
    ]) {
      expect(PolicyOverridesSchema.safeParse(bad).success, JSON.stringify(bad)).toBe(false);
    }
    expect(PolicyOverridesSchema.parse({})).toEqual({});
    expect(PolicyOverridesSchema.parse({ loop: { action: "warn" } })).toEqual({ loop: { action: "warn" } });
  });

  it("checks rules between fields on the merged policy", () => {
    const merged = mergePolicy(null, { retry: { initialDelayMs: 5_000, maxDelayMs: 1_000 } });
    const result = ToolPolicySchema.safeParse(merged);
    expect(result.success).toBe(false);
    expect(result.error!.issues[0]!.path).toEqual(["retry", "maxDelayMs"]);
  });
});

describe("mergePolicy / resolvePolicy — DEFAULT_POLICY ← `*` ← tool, field by field", () => {
  const project = { onDuplicate: "refuse" as const, ttlSeconds: 600, retry: { maxAttempts: 5 }, loop: { action: "warn" as const } };
  const tool = { ttlSeconds: 60, retry: { initialDelayMs: 250 }, ignoreFields: ["nonce"] };

  it("no layers: the built-in default", () => {
    expect(mergePolicy(null, null)).toEqual(DEFAULT_POLICY);
  });

  it("the tool wins over the project, the project over the default; nested objects merge per field", () => {
    const policy = mergePolicy(project, tool);
    expect(policy).toEqual({
      ...DEFAULT_POLICY,
      onDuplicate: "refuse",
      ttlSeconds: 60,
      ignoreFields: ["nonce"],
      retry: { ...DEFAULT_POLICY.retry, maxAttempts: 5, initialDelayMs: 250 },
      loop: { ...DEFAULT_POLICY.loop, action: "warn" },
    });
  });

  it("never mutates the default or the layers", () => {
    const before = JSON.stringify([DEFAULT_POLICY, project, tool]);
    mergePolicy(project, tool);
    expect(JSON.stringify([DEFAULT_POLICY, project, tool])).toBe(before);
  });

  it("says where every leaf field comes from", () => {
    const { sources } = resolvePolicy(project, tool);
    expect(Object.keys(sources).sort()).toEqual(leafPaths(DEFAULT_POLICY).sort());
    expect(sources).toMatchObject({
      effect: "builtin",
      onDuplicate: "project",
      ttlSeconds: "tool",
      ignoreFields: "tool",
      "retry.maxAttempts": "project",
      "retry.initialDelayMs": "tool",
      "retry.maxDelayMs": "builtin",
      "loop.action": "project",
      "loop.repeats": "builtin",
    });
  });
});

describe("diffOverrides", () => {
  it("lists changed leaves with before/after; absent means inherited", () => {
    expect(diffOverrides({ ttlSeconds: 60, retry: { maxAttempts: 5 } }, { ttlSeconds: 120, effect: "read", retry: { maxAttempts: 5 } })).toEqual([
      { path: "effect", after: "read" },
      { path: "ttlSeconds", before: 60, after: 120 },
    ]);
    expect(diffOverrides(null, { loop: { enabled: false } })).toEqual([{ path: "loop.enabled", after: false }]);
    expect(diffOverrides({ redactFields: ["a"] }, {})).toEqual([{ path: "redactFields", before: ["a"] }]);
  });
});

describe("an HTTP route's policy (issue #35 §2)", () => {
  it("ignores no field unless the route's own layer lists some; a project-wide list stays with agents' tools", () => {
    for (const route of ["POST /v1/refunds", "PATCH /gw/pay/v1/charges"]) {
      expect(mergePolicy(null, null, route).ignoreFields).toEqual([]);
      expect(mergePolicy({ ignoreFields: ["requestId"], ttlSeconds: 60 }, null, route)).toMatchObject({ ignoreFields: [], ttlSeconds: 60 });
      expect(mergePolicy({ ignoreFields: ["requestId"] }, { ignoreFields: ["timestamp"] }, route).ignoreFields).toEqual(["timestamp"]);
      expect(resolvePolicy({ ignoreFields: ["requestId"] }, null, route).sources.ignoreFields).toBe("builtin");
    }
    // Agents' tools (and a name that only looks like a method) keep the defaults and inherit the project's list.
    for (const tool of ["charge_card", "POST refunds", "post /v1/refunds"]) {
      expect(mergePolicy(null, null, tool).ignoreFields).toEqual(DEFAULT_POLICY.ignoreFields);
      expect(mergePolicy({ ignoreFields: ["requestId"] }, null, tool).ignoreFields).toEqual(["requestId"]);
    }
  });
});
