import { describe, expect, it } from "vitest";
import { parseIdempotencyKey } from "../../../lib/sdk/http/key-source";

/** The header's syntax (issue #35 §6): an sf-string, a bare key as a documented leniency, and nothing else. */
describe("Idempotency-Key syntax", () => {
  it.each([
    ['"8e03978e-40d5-43e8-bc93-6894a57f9324"', "8e03978e-40d5-43e8-bc93-6894a57f9324"],
    ["8e03978e-40d5-43e8-bc93-6894a57f9324", "8e03978e-40d5-43e8-bc93-6894a57f9324"],
    ['"order 17, charge"', "order 17, charge"],
    ['"say \\"hi\\""', 'say "hi"'],
    ['"abc";v=1', "abc"],
    ['"abc", "abc"', "abc"],
    ["order-17", "order-17"],
  ])("accepts %s as %s", (raw, key) => {
    expect(parseIdempotencyKey(raw)).toBe(key);
  });

  it.each([
    ['"abc'],
    ['"a\\x"'],
    ['"abc" trailing'],
    ['"a", "b"'],
    ["a, b"],
    ["123"],
    ["1.5"],
    ["?1"],
    [":Ynl0ZXM=:"],
    ['""'],
    ["order 17"],
  ])("refuses %s", (raw) => {
    expect(parseIdempotencyKey(raw)).toBeNull();
  });
});
