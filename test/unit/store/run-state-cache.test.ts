import { describe, expect, it } from "vitest";
import type { GateEvent } from "../../../lib/store/ports/gate-store";
import { RunStateCache } from "../../../lib/store/hot/sqlite/run-state-cache";

const step = (id: string, tool = "t", fingerprint = "f") => ({ id, tool, argsFingerprint: fingerprint });
const event = (id: string, runId: string, loopStep = true) =>
  ({ id, projectId: "p", runId, tool: "t", argsFingerprint: `f${id}`, loopStep }) as unknown as GateEvent;

describe("RunStateCache (a SQLite connection's run states)", () => {
  it("answers what was read while the data version holds; another connection's commit drops everything", () => {
    const cache = new RunStateCache();
    cache.observe(7);
    expect(cache.get("p", "r", 5)).toBeUndefined();
    cache.set("p", "r", 5, { steps: [step("e2"), step("e1")], aborted: false });
    cache.observe(7);
    expect(cache.get("p", "r", 5)).toEqual({ steps: [step("e2"), step("e1")], aborted: false });
    expect(cache.get("p", "r", 1)).toEqual({ steps: [step("e2")], aborted: false });
    // Fewer steps were read than asked for now: read again.
    expect(cache.get("p", "r", 6)).toBeUndefined();
    cache.observe(8);
    expect(cache.get("p", "r", 5)).toBeUndefined();
    expect(cache.size).toBe(0);
  });

  it("this connection's committed loop steps join their run in id order, once, up to the limit read", () => {
    const cache = new RunStateCache();
    cache.observe(1);
    cache.set("p", "r", 3, { steps: [step("e5"), step("e3")], aborted: false });
    cache.committed([event("e6", "r"), event("e4", "r"), event("e9", "other"), event("e7", "r", false)]);
    expect(cache.get("p", "r", 3)!.steps.map((s) => s.id)).toEqual(["e6", "e5", "e4"]);
    // A batch written again (its commit was in doubt) changes nothing.
    cache.committed([event("e6", "r")]);
    expect(cache.get("p", "r", 3)!.steps.map((s) => s.id)).toEqual(["e6", "e5", "e4"]);
    // Older than every step held at the limit: not among the newest.
    cache.committed([event("e1", "r")]);
    expect(cache.get("p", "r", 3)!.steps.map((s) => s.id)).toEqual(["e6", "e5", "e4"]);
    // A run not held is read when asked for.
    expect(cache.get("p", "other", 3)).toBeUndefined();
  });

  it("a run that was read aborted stays so until the version changes", () => {
    const cache = new RunStateCache();
    cache.observe(1);
    cache.set("p", "r", 0, { steps: [], aborted: true });
    expect(cache.get("p", "r", 0)).toEqual({ steps: [], aborted: true });
  });
});
