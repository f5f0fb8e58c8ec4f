import { describe, expect, it } from "vitest";
import type { CallStatus } from "@/lib/contract/v1";
import { prepareCallTimeline } from "@/lib/dashboard/prepare-call-timeline";

const call: CallStatus = {
  callId: "call_1",
  key: "k",
  tool: "send_email",
  runId: "run_1",
  stepId: "s",
  scope: null,
  agentId: null,
  toolCallId: null,
  status: "succeeded",
  attempt: 2,
  replays: 3,
  argsFingerprint: "f",
  firstSeenAt: "2026-01-01T00:00:00.000Z",
  completedAt: "2026-01-01T00:00:05.000Z",
  leaseExpiresAt: null,
  expiresAt: "2026-01-02T00:00:05.000Z",
};

describe("prepareCallTimeline", () => {
  it("orders the record's moments oldest first", () => {
    expect(prepareCallTimeline(call).map((e) => e.label)).toEqual([
      "First seen (attempt 1 of run run_1)",
      "Succeeded on attempt 2",
      "Replayed 3× since",
      "Outcome expires (TTL)",
    ]);
  });

  it("shows the live lease of a call in progress", () => {
    const live = { ...call, status: "in_progress" as const, completedAt: null, replays: 0, leaseExpiresAt: "2026-01-01T00:00:30.000Z" };
    expect(prepareCallTimeline(live).map((e) => e.label)).toEqual(["First seen (attempt 1 of run run_1)", "Lease of attempt 2 expires", "Outcome expires (TTL)"]);
  });
});
