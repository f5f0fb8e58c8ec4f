import { describe, expect, it } from "vitest";
import { policyFields } from "@/lib/dashboard/policy-form";
import { policyLabel } from "@/lib/dashboard/policy-labels";

describe("policy field labels", () => {
  it("every editable field has a human label and help, with no raw field names and no references to DESIGN.md", () => {
    for (const field of policyFields()) {
      const { label, help } = policyLabel(field.path, field.description);
      expect(label, field.path).not.toMatch(/[a-z][A-Z]|\w\.\w/);
      expect(help.length, field.path).toBeGreaterThan(10);
      expect(help, field.path).not.toMatch(/DESIGN\.md/);
    }
  });

  it("a field it does not know is spelled out from its name", () => {
    expect(policyLabel("storm.minDedupRate", "Rate (DESIGN.md, Storms) under which nothing opens")).toEqual({
      label: "Storm: min dedup rate",
      help: "Rate under which nothing opens",
    });
  });
});
