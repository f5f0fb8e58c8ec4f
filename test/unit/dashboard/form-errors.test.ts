import { describe, expect, it } from "vitest";
import { AddMemberSchema, CreateApiKeySchema } from "@/lib/contract/operator";
import { validateForm, withoutBlanks } from "@/lib/dashboard/form-errors";

describe("validateForm with the API's schemas", () => {
  it("passes valid values through as the schema's output", () => {
    expect(validateForm(CreateApiKeySchema, { name: "  billing  " })).toEqual({ ok: true, data: { name: "billing" } });
  });

  it("keys the first error per field, with the form's own wording when given", () => {
    const result = validateForm(AddMemberSchema, withoutBlanks({ email: "not-an-email", role: "viewer", name: "", password: "short" }), {
      email: "Enter the person's email address.",
    });
    expect(result).toEqual({ ok: false, errors: { email: "Enter the person's email address.", password: expect.stringMatching(/8/) } });
  });

  it("blank optional fields are left out rather than sent empty", () => {
    expect(withoutBlanks({ email: "a@b.co", name: " ", password: "" })).toEqual({ email: "a@b.co" });
    expect(validateForm(AddMemberSchema, withoutBlanks({ email: "a@b.co", role: "admin", name: "", password: "" }))).toEqual({
      ok: true,
      data: { email: "a@b.co", role: "admin" },
    });
  });
});
