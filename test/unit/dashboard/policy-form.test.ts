import { describe, expect, it } from "vitest";
import { POLICY_SECTIONS, buildOverrides, draftFromOverrides, groupPolicyFields, inheritedValue, policyFields } from "@/lib/dashboard/policy-form";

const fields = policyFields();

describe("policyFields", () => {
  it("lists every leaf of the policy schema with its kind", () => {
    const by = Object.fromEntries(fields.map((f) => [f.path, f]));
    expect(by.effect).toMatchObject({ kind: "enum", options: ["read", "write", "async"] });
    expect(by.ttlSeconds?.kind).toBe("number");
    expect(by.cacheFailures?.kind).toBe("boolean");
    expect(by.ignoreFields?.kind).toBe("list");
    expect(by["retry.maxAttempts"]?.kind).toBe("number");
    expect(by["loop.action"]).toMatchObject({ kind: "enum", options: ["block", "warn"] });
    expect(by["storm.factor"]?.kind).toBe("number");
  });
});

describe("draft ↔ overrides", () => {
  it("round-trips a layer, nested fields included; unset fields stay inherited", () => {
    const overrides = { effect: "async" as const, ttlSeconds: 60, ignoreFields: ["a", "b"], retry: { maxAttempts: 5 }, cacheFailures: false };
    const draft = draftFromOverrides(overrides, fields);
    expect(draft).toEqual({ effect: "async", ttlSeconds: "60", ignoreFields: "a, b", "retry.maxAttempts": "5", cacheFailures: "false" });
    expect(draft.keyStrategy).toBeUndefined();
    expect(buildOverrides(draft, fields)).toEqual({ ok: true, policy: overrides });
  });

  it("budgets and shadow mode: an empty limit is no limit (null), a number is the limit", () => {
    const by = Object.fromEntries(fields.map((f) => [f.path, f]));
    expect(by.mode).toMatchObject({ kind: "enum", options: ["enforce", "shadow"] });
    expect(by["budget.maxCallsPerRun"]).toMatchObject({ kind: "number", nullable: true });
    expect(by["budget.currency"]?.kind).toBe("enum");
    const draft = { mode: "shadow", "budget.maxCallsPerRun": "10", "budget.maxCostPerRun": "", "budget.costPerExecution": "0.25" };
    expect(buildOverrides(draft, fields)).toEqual({
      ok: true,
      policy: { mode: "shadow", budget: { maxCallsPerRun: 10, maxCostPerRun: null, costPerExecution: 0.25 } },
    });
    expect(buildOverrides({ "budget.costPerExecution": "" }, fields)).toMatchObject({ ok: false, errors: { "budget.costPerExecution": "Enter a number" } });
  });

  it("an empty draft inherits everything", () => {
    expect(buildOverrides({}, fields)).toEqual({ ok: true, policy: {} });
    expect(draftFromOverrides(null, fields)).toEqual({});
  });

  it("reports invalid fields by path, from the zod schema", () => {
    const result = buildOverrides({ ttlSeconds: "0", "retry.backoffFactor": "abc", leaseSeconds: "1.5" }, fields);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(Object.keys(result.errors).sort()).toEqual(["leaseSeconds", "retry.backoffFactor", "ttlSeconds"]);
    expect(result.errors["retry.backoffFactor"]).toBe("Enter a number");
  });

  it("shows an inherited field's value and source", () => {
    const effective = {
      tool: "t",
      version: 3,
      ownVersion: 0,
      overrides: null,
      sources: { "retry.maxAttempts": "project" as const },
      policy: { retry: { maxAttempts: 7 }, ignoreFields: ["x", "y"] },
    } as unknown as Parameters<typeof inheritedValue>[0];
    expect(inheritedValue(effective, "retry.maxAttempts")).toEqual({ value: "7", source: "project" });
    expect(inheritedValue(effective, "ignoreFields")).toEqual({ value: "x, y", source: "builtin" });
  });
});

describe("groupPolicyFields", () => {
  it("puts every field in exactly one of the six sections, in the issue's order, and nothing in Other", () => {
    const groups = groupPolicyFields(fields);
    expect(groups.map((g) => g.title)).toEqual(["Identity and keys", "Duplicates", "Leases and TTL", "Loops and budgets", "Approvals and previews", "Storms"]);
    expect(groups.flatMap((g) => g.fields.map((f) => f.path)).sort()).toEqual(fields.map((f) => f.path).sort());
    const sectionOf = (path: string) => groups.find((g) => g.fields.some((f) => f.path === path))?.id;
    expect([sectionOf("keyStrategy"), sectionOf("onDuplicate"), sectionOf("leaseGraceSeconds"), sectionOf("loop.action"), sectionOf("budget.currency"), sectionOf("preview"), sectionOf("storm.factor")]).toEqual([
      "identity",
      "duplicates",
      "leases",
      "loops",
      "loops",
      "approvals",
      "storms",
    ]);
    expect(POLICY_SECTIONS).toHaveLength(6);
  });

  it("a field no section names is shown under Other, never dropped", () => {
    const groups = groupPolicyFields([...fields, { path: "future.knob", kind: "number" }]);
    expect(groups.at(-1)).toMatchObject({ id: "other", fields: [{ path: "future.knob" }] });
  });
});
