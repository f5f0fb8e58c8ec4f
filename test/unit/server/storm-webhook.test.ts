import { describe, expect, it, vi } from "vitest";
import { StormWebhook } from "../../../lib/server/storm-webhook";

/** A fetch that answers each call with the next status (or throws for "error"). */
function scripted(answers: (number | "error" | "hang")[]) {
  const calls: { url: string; body: string; headers: Record<string, string> }[] = [];
  const fetch = vi.fn(async (url: string | URL | Request, init?: RequestInit) => {
    calls.push({ url: String(url), body: String(init?.body), headers: init?.headers as Record<string, string> });
    const answer = answers[Math.min(calls.length - 1, answers.length - 1)]!;
    if (answer === "error") throw new TypeError("fetch failed");
    if (answer === "hang") {
      return new Promise<Response>((_, reject) => init?.signal?.addEventListener("abort", () => reject(init.signal!.reason)));
    }
    return new Response(null, { status: answer });
  });
  return { fetch: fetch as unknown as typeof globalThis.fetch, calls };
}

describe("the storm webhook", () => {
  it("posts the notice as JSON with its type, once when the receiver accepts it", async () => {
    const { fetch, calls } = scripted([204]);
    const hook = new StormWebhook("http://hooks.test/x", { fetch, backoffMs: 1 });
    hook.send("storm.opened", { id: "storm_1" });
    await hook.drain();
    expect(calls).toHaveLength(1);
    expect(calls[0]!.headers).toMatchObject({ "content-type": "application/json", "x-idemgate-event": "storm.opened" });
    expect(JSON.parse(calls[0]!.body)).toMatchObject({ type: "storm.opened", data: { id: "storm_1" } });
  });

  it("retries network errors, timeouts, 429 and 5xx with backoff, up to the attempt limit", async () => {
    const warn = vi.spyOn(console, "warn").mockImplementation(() => undefined);
    const flaky = scripted(["error", 503, 429, 200]);
    const hook = new StormWebhook("http://hooks.test/x", { fetch: flaky.fetch, backoffMs: 1, attempts: 4 });
    hook.send("storm.opened", {});
    await hook.drain();
    expect(flaky.calls).toHaveLength(4);

    const down = scripted(["hang"]);
    const slow = new StormWebhook("http://hooks.test/x", { fetch: down.fetch, backoffMs: 1, attempts: 3, timeoutMs: 20 });
    slow.send("storm.closed", {});
    await slow.drain();
    expect(down.calls).toHaveLength(3);
    expect(warn).toHaveBeenCalledWith(expect.stringContaining("storm.closed not delivered"));
    warn.mockRestore();
  });

  it("does not retry an answer retrying cannot change (4xx)", async () => {
    const warn = vi.spyOn(console, "warn").mockImplementation(() => undefined);
    const { fetch, calls } = scripted([404]);
    const hook = new StormWebhook("http://hooks.test/x", { fetch, backoffMs: 1 });
    hook.send("storm.opened", {});
    await hook.drain();
    expect(calls).toHaveLength(1);
    warn.mockRestore();
  });

  it("returns at once and drops notices beyond the pending limit instead of queueing without bound", async () => {
    const warn = vi.spyOn(console, "warn").mockImplementation(() => undefined);
    const { fetch, calls } = scripted(["hang"]);
    const hook = new StormWebhook("http://hooks.test/x", { fetch, attempts: 1, timeoutMs: 50, maxPending: 2 });
    const started = performance.now();
    for (let i = 0; i < 5; i++) hook.send("storm.opened", { i });
    expect(performance.now() - started).toBeLessThan(20);
    await hook.drain();
    expect(calls).toHaveLength(2);
    expect(warn).toHaveBeenCalledWith(expect.stringContaining("dropped"));
    warn.mockRestore();
  });
});
