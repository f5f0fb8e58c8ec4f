import { describe, expect, it } from "vitest";
import { formatInstant } from "@/lib/dashboard/format-time";

describe("formatInstant", () => {
  const iso = "2026-11-23T10:11:12.345Z";
  it("reads as UTC to the minute by default, to the second or millisecond when asked", () => {
    expect(formatInstant(iso)).toBe("2026-11-23 10:11 UTC");
    expect(formatInstant(iso, "seconds")).toBe("2026-11-23 10:11:12 UTC");
    expect(formatInstant(iso, "millis")).toBe("2026-11-23 10:11:12.345 UTC");
  });
});
