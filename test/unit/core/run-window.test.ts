import { describe, expect, it } from "vitest";
import { planBegin } from "../../../lib/core/plan-begin";
import { planComplete } from "../../../lib/core/plan-complete";
import { DEFAULT_POLICY, keepSeconds } from "../../../lib/core/policy";
import { identifyCall } from "../../../lib/server/gateways/mcp/call-identity";
import { NOW, SECOND, makeCall, makeEnv, policyWith } from "./fixtures";

const WINDOW = 120;
const POLICY = policyWith({ ttlSeconds: 86_400, mcp: { ...DEFAULT_POLICY.mcp, runWindowSeconds: WINDOW } });

function completedAt(at: number, runWindowed: boolean) {
  const call = makeCall({ runWindowed });
  const claimed = planBegin(null, call, makeEnv(POLICY, NOW)).record;
  const plan = planComplete(claimed, claimed.leaseToken, { outcome: "succeeded", result: { ok: true } }, POLICY, at, runWindowed);
  if (plan.op !== "update") throw new Error(`expected update, got ${plan.op}`);
  return { call, record: plan.record };
}

describe("the MCP run window (issue #34 §2): a call that names no run dedupes for minutes, not for the TTL", () => {
  it("an anonymous run's record is kept for the window; a named run's for the whole TTL", () => {
    const claimedAnon = planBegin(null, makeCall({ runWindowed: true }), makeEnv(POLICY, NOW)).record;
    expect(claimedAnon.expiresAt).toBe(NOW + WINDOW * SECOND);
    expect(completedAt(NOW + 5 * SECOND, true).record.expiresAt).toBe(NOW + 5 * SECOND + WINDOW * SECOND);
    expect(completedAt(NOW + 5 * SECOND, false).record.expiresAt).toBe(NOW + 5 * SECOND + 86_400 * SECOND);
  });

  it("within the window a duplicate replays; after it the same call runs again", () => {
    const done = NOW + 5 * SECOND;
    const { call, record } = completedAt(done, true);
    expect(planBegin(record, call, makeEnv(POLICY, done + (WINDOW - 1) * SECOND)).decision.decision).toBe("replay");
    expect(planBegin(record, call, makeEnv(POLICY, done + (WINDOW + 1) * SECOND)).decision.decision).toBe("execute");
  });

  it("never longer than the TTL, and a scope key (the same business entity whatever the run) keeps the TTL", () => {
    expect(keepSeconds({ ...DEFAULT_POLICY, ttlSeconds: 60, mcp: { ...DEFAULT_POLICY.mcp, runWindowSeconds: 300 } }, true)).toBe(60);
    expect(keepSeconds({ ...DEFAULT_POLICY, keyStrategy: "scope", mcp: { ...DEFAULT_POLICY.mcp, runWindowSeconds: 300 } }, true)).toBe(DEFAULT_POLICY.ttlSeconds);
    expect(keepSeconds(DEFAULT_POLICY, false)).toBe(DEFAULT_POLICY.ttlSeconds);
    expect(DEFAULT_POLICY.mcp.runWindowSeconds).toBeLessThanOrEqual(600);
  });

  it("the run: the client's _meta, else the Idemgate-Run-Id header, else the API key's anonymous run (never the session)", () => {
    const base = { idempotencyKey: undefined, apiKeyId: "key_1" };
    expect(identifyCall({ ...base, meta: { "idemgate/runId": "run-a" }, runHeader: "run-h" })).toMatchObject({ runId: "run-a", runWindowed: false });
    expect(identifyCall({ ...base, meta: undefined, runHeader: "run-h" })).toMatchObject({ runId: "run-h", runWindowed: false });
    expect(identifyCall({ ...base, meta: {}, runHeader: null })).toMatchObject({ runId: "key:key_1", runWindowed: true });
  });
});
