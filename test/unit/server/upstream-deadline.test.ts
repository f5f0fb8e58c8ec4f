import { describe, expect, it } from "vitest";
import { DEFAULT_CLIENT_WAIT_MS, upstreamDeadline } from "../../../lib/server/gateways/mcp/upstream-deadline";

describe("the upstream's deadline (issue #34 §1): never longer than the client will wait", () => {
  it("a client that declares nothing waits the SDKs' 60 s: the gateway answers before it, within the policy", () => {
    const deadline = upstreamDeadline({ policyTimeoutMs: 600_000, meta: undefined, progress: false });
    expect(deadline.timeout).toBeLessThan(DEFAULT_CLIENT_WAIT_MS);
    expect(deadline.timeout).toBeGreaterThan(DEFAULT_CLIENT_WAIT_MS - 5_000);
    expect(deadline.resetTimeoutOnProgress).toBe(false);
    expect(upstreamDeadline({ policyTimeoutMs: 10_000, meta: undefined, progress: false }).timeout).toBe(10_000);
  });

  it("a declared timeout (_meta idemgate/timeoutMs) shortens it; nonsense is ignored", () => {
    expect(upstreamDeadline({ policyTimeoutMs: 60_000, meta: { "idemgate/timeoutMs": 15_000 }, progress: false }).timeout).toBeLessThan(15_000);
    expect(upstreamDeadline({ policyTimeoutMs: 60_000, meta: { "idemgate/timeoutMs": 15_000 }, progress: false }).timeout).toBeGreaterThan(12_000);
    for (const bad of [-1, 0, "15000", Number.NaN]) {
      expect(upstreamDeadline({ policyTimeoutMs: 600_000, meta: { "idemgate/timeoutMs": bad }, progress: false }).timeout).toBeGreaterThan(55_000);
    }
  });

  it("progress restarts the wait only for a client that asked for it, and the policy bounds the whole call", () => {
    expect(upstreamDeadline({ policyTimeoutMs: 300_000, meta: undefined, progress: true })).toMatchObject({ resetTimeoutOnProgress: true, maxTotalTimeout: 300_000 });
    expect(upstreamDeadline({ policyTimeoutMs: 300_000, meta: undefined, progress: false })).not.toHaveProperty("maxTotalTimeout");
  });
});
