import { afterEach, describe, expect, it } from "vitest";
import { FlakyTransport } from "./flaky-transport";
import { type TestGate, delay, inProcessGate } from "./helpers";

let t: TestGate;
afterEach(async () => t?.close());

/** The gate's policy lease is 1 s here; every tool below runs 2–2.5 s, longer than the lease. */
// No liveness grace: these tests pin when the lease itself lapses (the grace is tested in plan-begin.test.ts).
const ONE_SECOND_LEASE = { leaseSeconds: 1, leaseGraceSeconds: 0 };

describe("heartbeats keep a slow execution's lease", () => {
  it("a contender arriving after the original lease would have lapsed waits and replays: one execution", async () => {
    t = await inProcessGate({ policy: ONE_SECOND_LEASE });
    const contender = t.client();
    let runs = 0;
    const slow = async () => {
      runs++;
      await delay(2_200);
      return { report: "r1" };
    };
    const [first, second] = await t.gate.run({ runId: "slow-1" }, () =>
      Promise.all([t.gate.call({ tool: "export", step: "export" }, slow), delay(1_400).then(() => contender.call({ tool: "export", step: "export" }, slow))]),
    );
    expect(runs).toBe(1);
    expect(first).toMatchObject({ status: "executed", recorded: true });
    expect(second).toMatchObject({ status: "replayed", value: { report: "r1" } });
    if (first.status !== "executed") throw new Error("unreachable");
    const beats = (await t.store.listEventsForCall(t.projectId, first.callId)).filter((e) => e.type === "heartbeat");
    expect(beats.length).toBeGreaterThanOrEqual(4);
  });

  it("control: without heartbeats the lease lapses, the contender runs it again, and the first learns lease_lost", async () => {
    t = await inProcessGate({ policy: ONE_SECOND_LEASE });
    const silent = t.client({ heartbeat: false });
    const contender = t.client();
    let runs = 0;
    const slow = async () => {
      const run = ++runs;
      await delay(2_000);
      return { run };
    };
    const [first, second] = await silent.run({ runId: "slow-2" }, () =>
      Promise.all([silent.call({ tool: "export", step: "export" }, slow), delay(1_300).then(() => contender.call({ tool: "export", step: "export" }, slow))]),
    );
    expect(runs).toBe(2);
    expect(second).toMatchObject({ status: "executed", attempt: 2, recovered: true });
    expect(first).toMatchObject({ ok: false, status: "lease_lost", executed: true, value: { run: 1 } });
  });

  it("a beat that learns the lease is gone aborts the tool's signal", async () => {
    t = await inProcessGate({ policy: ONE_SECOND_LEASE });
    let flaky!: FlakyTransport;
    const cutOff = t.client({ gateRetry: { initialDelayMs: 20, maxDelayMs: 50 } }, (inner) => (flaky = new FlakyTransport(inner, {})));
    const contender = t.client();
    let aborted: unknown;
    const result = await cutOff.run({ runId: "slow-3" }, async () => {
      flaky.down.add("heartbeat");
      const first = cutOff.call({ tool: "export", step: "export" }, ({ signal }) =>
        new Promise((_, reject) => signal.addEventListener("abort", () => reject((aborted = signal.reason)))),
      );
      await delay(1_200);
      const second = await contender.call({ tool: "export", step: "export" }, async () => "taken over");
      flaky.down.delete("heartbeat");
      return { first: await first, second };
    });
    expect(result.second).toMatchObject({ status: "executed", recovered: true });
    expect(aborted).toMatchObject({ name: "LeaseLostError" });
    expect(result.first).toMatchObject({ ok: false, status: "lease_lost", executed: true });
  });

  it("leaseSeconds on the client shortens the lease, so a vanished agent is taken over quickly", async () => {
    t = await inProcessGate({ policy: { leaseGraceSeconds: 0 } }); // policy lease: 30 s
    const crashing = t.client({ leaseSeconds: 1, heartbeat: false });
    const resumed = t.client();
    const abandoned = crashing.run({ runId: "crash-1" }, () => crashing.call({ tool: "charge", step: "charge" }, () => new Promise(() => {})));
    void abandoned;
    await delay(100);
    const started = Date.now();
    const result = await resumed.run({ runId: "crash-1" }, () => resumed.call({ tool: "charge", step: "charge" }, async () => "charged"));
    expect(result).toMatchObject({ status: "executed", attempt: 2, recovered: true });
    expect(Date.now() - started).toBeLessThan(2_500);
  });
});
