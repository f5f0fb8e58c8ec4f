import { describe, expect, it } from "vitest";
import { auditDetailFields } from "@/lib/dashboard/audit-detail";

describe("auditDetailFields", () => {
  it("labels fields in words, and shows instants as UTC times, whether epoch ms or ISO", () => {
    expect(auditDetailFields({ tokenExpiresAt: Date.UTC(2026, 10, 23, 11, 46, 2), decidedAt: "2026-11-23T11:46:02.000Z" })).toEqual([
      { label: "token expires at", value: "2026-11-23 11:46:02 UTC", code: false },
      { label: "decided at", value: "2026-11-23 11:46:02 UTC", code: false },
    ]);
  });

  it("cuts hashes to a prefix and long text to a cell, keeping the whole value", () => {
    const key = "4a78c59d1b7bf6d826f895e14b126135e22a743f6ef9b9e54f3a054d68d61ee1";
    const reason = "x".repeat(120);
    const [hash, text] = auditDetailFields({ key, reason });
    expect(hash).toEqual({ label: "key", value: "4a78c59d1b7b…", full: key, code: true });
    expect(text!.value).toHaveLength(80);
    expect(text!.value.endsWith("…")).toBe(true);
    expect(text!.full).toBe(reason);
  });

  it("shows ids as code, booleans in words, counts as numbers and nested values as JSON", () => {
    expect(auditDetailFields({ callId: "call_0mwt79bvv000BiWyBfjgy38", autoApproved: false, fromGeneration: 1, roles: ["admin"] })).toEqual([
      { label: "call id", value: "call_0mwt79bvv000BiWyBfjgy38", code: true },
      { label: "auto approved", value: "no", code: false },
      { label: "from generation", value: "1", code: false },
      { label: "roles", value: '["admin"]', code: true },
    ]);
  });

  it("has nothing to show for no detail, and one field for a detail that is not an object", () => {
    expect(auditDetailFields(null)).toEqual([]);
    expect(auditDetailFields("plain")).toEqual([{ label: "detail", value: "plain", code: false }]);
  });
});
