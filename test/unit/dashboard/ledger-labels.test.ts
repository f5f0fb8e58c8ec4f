import { describe, expect, it } from "vitest";
import type { LedgerEvent } from "@/lib/contract/calls";
import { actorOf, describeEvent, formatOffset, noteOf, toneOfDecision, toneOfEvent } from "@/lib/dashboard/ledger-labels";
import { ledgerEvent as event } from "./ledger-event";

describe("ledger labels", () => {
  it.each([
    [{ type: "begin", decision: "execute" }, "begin → execute", "exec"],
    [{ type: "begin", decision: "replay", argsMismatch: true }, "begin → replay (different args)", "dedup"],
    [{ type: "begin", decision: "in_progress" }, "begin → in progress", "dedup"],
    [{ type: "begin", decision: "refused" }, "begin → refused", "warn"],
    [{ type: "begin", decision: "conflict" }, "begin → conflict", "danger"],
    [{ type: "begin", decision: "blocked", callId: null }, "begin → blocked (loop detected)", "danger"],
    [{ type: "begin", decision: "blocked", callId: null, detail: { reason: "budget_exceeded", budget: { exceeded: "cost" } } }, "begin → blocked (run budget exceeded)", "danger"],
    [{ type: "complete", decision: "succeeded" }, "complete: succeeded", "ok"],
    [{ type: "complete", decision: "released" }, "complete: released (retryable failure)", "warn"],
    [{ type: "heartbeat", decision: "extended" }, "heartbeat: lease extended", "neutral"],
    [{ type: "lease_lost", decision: "complete_succeeded" }, "lease lost: late complete (succeeded)", "danger"],
    [{ type: "lease_lost", decision: "heartbeat" }, "lease lost: heartbeat refused", "danger"],
    [{ type: "operator", decision: "evicted" }, "evicted by an operator", "neutral"],
    [{ type: "operator", decision: "resolved_failed" }, "resolved by an operator: failed", "neutral"],
    [{ type: "resend", decision: "generation_raised", detail: { generation: 2, requestId: "rr_1" } }, "resend approved: generation 2", "neutral"],
  ] as [Partial<LedgerEvent>, string, string][])("%o reads %s", (over, label, tone) => {
    expect(describeEvent(event(over))).toBe(label);
    expect(toneOfEvent(event(over))).toBe(tone);
  });

  it("name who caused an event", () => {
    expect(actorOf(event({ agentId: "billing-sub" }))).toBe("agent billing-sub");
    expect(actorOf(event({}))).toBe("root agent");
    expect(actorOf(event({ type: "operator", decision: "evicted", detail: { by: "ops@x.io", reason: "bad" } }))).toBe("ops@x.io");
    expect(actorOf(event({ type: "resend", detail: { requestId: "rr_9" } }))).toBe("request rr_9");
  });

  it("surface reasons, notes and loop warnings", () => {
    expect(noteOf(event({ type: "operator", detail: { by: "a", reason: "cached a bad result" } }))).toBe("reason: cached a bad result");
    expect(noteOf(event({ type: "operator", detail: { by: "a", note: "seen in the console" } }))).toBe("note: seen in the console");
    expect(noteOf(event({ detail: { loopWarning: { reason: "loop_detected", pattern: ["a", "b"], repeats: 3 } } }))).toBe("loop: a → b ×3");
    expect(noteOf(event({ detail: null }))).toBeNull();
  });

  it("colour statuses and decisions the same way everywhere", () => {
    expect(toneOfDecision("succeeded")).toBe("ok");
    expect(toneOfDecision("failed")).toBe("danger");
    expect(toneOfDecision("replay")).toBe("dedup");
    expect(toneOfDecision("lease_lost")).toBe("danger");
    expect(toneOfDecision("something_new")).toBe("neutral");
  });

  it.each([
    [0, "+0 ms"],
    [850, "+850 ms"],
    [1_234, "+1.2 s"],
    [42_000, "+42 s"],
    [185_000, "+3 min 5 s"],
    [120_000, "+2 min"],
    [7_380_000, "+2 h 3 min"],
    [93_600_000, "+1 d 2 h"],
  ])("format an offset of %i ms as %s", (ms, text) => {
    expect(formatOffset(ms)).toBe(text);
  });
});
