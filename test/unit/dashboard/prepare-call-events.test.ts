import { describe, expect, it } from "vitest";
import type { LedgerEvent } from "@/lib/contract/calls";
import { prepareCallEvents } from "@/lib/dashboard/prepare-call-events";

const at = (ms: number) => new Date(Date.UTC(2026, 0, 1) + ms).toISOString();
const event = (id: string, ms: number, over: Partial<LedgerEvent>): LedgerEvent => ({
  id,
  callId: "call_1",
  at: at(ms),
  type: "begin",
  decision: "execute",
  attempt: 1,
  tool: "charge",
  key: "k",
  agentId: null,
  toolCallId: null,
  argsMismatch: false,
  latencyUs: 0,
  policyVersion: 3,
  detail: null,
  ...over,
});

describe("prepareCallEvents", () => {
  const ledger = [
    event("evt_3", 2_500, { type: "complete", decision: "succeeded", attempt: 2 }),
    event("evt_1", 0, {}),
    event("evt_2", 1_200, { type: "lease_lost", decision: "heartbeat" }),
    event("evt_4", 2_500, { decision: "replay", attempt: 2, agentId: "sub" }),
    event("evt_5", 65_000, { type: "operator", decision: "evicted", detail: { by: "ops@x.io", reason: "stale" } }),
  ];

  it("orders the ledger oldest first (ties by id) with the time since the first event", () => {
    const entries = prepareCallEvents(ledger);
    expect(entries.map((e) => [e.offset, e.label, e.attempt, e.actor])).toEqual([
      ["First seen", "begin → execute", 1, "root agent"],
      ["+1.2 s", "lease lost: heartbeat refused", 1, "root agent"],
      ["+2.5 s", "complete: succeeded", 2, "root agent"],
      ["+2.5 s", "begin → replay", 2, "agent sub"],
      ["+1 min 5 s", "evicted by an operator", 1, "ops@x.io"],
    ]);
    expect(entries.map((e) => e.tone)).toEqual(["exec", "danger", "ok", "dedup", "neutral"]);
    expect(entries[4]!.note).toBe("reason: stale");
  });

  it("does not call a truncated ledger's first entry the first sighting", () => {
    expect(prepareCallEvents(ledger, true)[0]!.offset).toBe("+0 ms");
  });

  it("is empty for an empty ledger", () => {
    expect(prepareCallEvents([])).toEqual([]);
  });
});
