import { describe, expect, it } from "vitest";
import { ToolError, isRetryableError, toToolErrorInfo } from "../../../lib/sdk";
import { describeForModel } from "../../../lib/sdk";
import { resultFromDecision } from "../../../lib/sdk/results";

const named = (name: string, message = name) => Object.assign(new Error(message), { name });
const coded = (code: string) => Object.assign(new Error(code), { code });

describe("classifying thrown errors", () => {
  it.each([
    ["ToolError retryable", new ToolError("rate limited", { retryable: true, retryAfterSeconds: 3 }), true],
    ["ToolError permanent", new ToolError("card declined", { retryable: false }), false],
    ["any error saying retryable: false", Object.assign(new Error("x"), { retryable: false, code: "ECONNRESET" }), false],
    ["TimeoutError (AbortSignal.timeout)", named("TimeoutError"), true],
    ["AbortError", named("AbortError"), true],
    ["ECONNRESET", coded("ECONNRESET"), true],
    ["ETIMEDOUT", coded("ETIMEDOUT"), true],
    ["undici fetch failed with a socket cause", new TypeError("fetch failed", { cause: coded("UND_ERR_SOCKET") }), true],
    ["HTTP 503", Object.assign(new Error("unavailable"), { status: 503 }), true],
    ["HTTP 429", Object.assign(new Error("slow down"), { statusCode: 429 }), true],
    ["HTTP 400", Object.assign(new Error("bad request"), { status: 400 }), false],
    ["a plain Error", new Error("invalid IBAN"), false],
    ["a thrown string", "nope", false],
    ["a wrapped network error", new Error("charge failed", { cause: coded("ECONNREFUSED") }), true],
  ])("%s → retryable %s", (_, error, retryable) => {
    expect(isRetryableError(error)).toBe(retryable);
  });

  it("keeps the message and retry-after on the wire form", () => {
    expect(toToolErrorInfo(new ToolError("rate limited", { retryable: true, retryAfterSeconds: 2.5 }))).toEqual({
      message: "rate limited",
      retryable: true,
      retryAfterSeconds: 3,
    });
    expect(toToolErrorInfo("nope")).toEqual({ message: "nope", retryable: false });
    expect(toToolErrorInfo(new Error("x".repeat(20_000))).message).toHaveLength(10_000);
  });
});

describe("decisions the engine cannot produce yet map to typed results too", () => {
  it("approval_required and blocked", () => {
    const approval = resultFromDecision({ decision: "approval_required", requestId: "rr_1" });
    expect(approval).toEqual({ ok: false, status: "approval_required", requestId: "rr_1" });
    const blocked = resultFromDecision({ decision: "blocked", reason: "loop_detected", pattern: ["search", "search"], repeats: 3 });
    expect(blocked).toEqual({ ok: false, status: "blocked", reason: "loop_detected", pattern: ["search", "search"], repeats: 3 });
    expect(describeForModel(blocked)).toMatch(/repeated 3 times/);
    expect(describeForModel(approval)).toMatch(/rr_1/);
  });
});
