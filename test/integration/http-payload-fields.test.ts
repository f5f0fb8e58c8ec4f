import { randomUUID } from "node:crypto";
import { expect, it } from "vitest";
import { describeGatewayWorld, describeMiddlewareMatrix } from "../helpers/middleware-matrix";

/**
 * Issue #35 §2: an HTTP route's payload is what its client sent. The fields agents' arguments
 * ignore by default (timestamps, request and trace ids) are not ignored in a body: two bodies that
 * differ only there are two payloads, a 422 for one key, unless the route's own policy lists them.
 */
describeMiddlewareMatrix("no field of a body is ignored by default", (mounted) => {
  const refund = async (key: string, body: Record<string, unknown>) => {
    const res = await fetch(`${mounted().tool.baseUrl}/v1/refunds`, { method: "POST", headers: { "content-type": "application/json", "idempotency-key": key }, body: JSON.stringify(body) });
    return { status: res.status, replayed: res.headers.get("idempotent-replayed"), body: (await res.json()) as Record<string, unknown> };
  };

  it("422 for a body that differs only in a timestamp, a request id or a trace id; the same body replays; the handler ran once", async () => {
    const id = randomUUID().slice(0, 8);
    const key = randomUUID();
    const sent = { id, amount: 12, timestamp: "2026-11-28T10:00:00Z", requestId: "req_1", trace_id: "t1" };
    expect((await refund(key, sent)).status).toBe(201);
    for (const changed of [{ timestamp: "2026-11-28T10:00:01Z" }, { requestId: "req_2" }, { trace_id: "t2" }]) {
      const other = await refund(key, { ...sent, ...changed });
      expect([Object.keys(changed)[0], other.status, other.body.type]).toEqual([Object.keys(changed)[0], 422, expect.stringMatching(/idempotency-key-reused$/)]);
    }
    const same = await refund(key, { ...sent });
    expect([same.status, same.replayed]).toEqual([201, "true"]);
    expect(mounted().tool.executions.get(id)).toBe(1);
  });
});

describeGatewayWorld("no field of a body is ignored unless the route's policy says so", (world) => {
  const charges = (amount: number) => world().upstream.charges.filter((charge) => charge.amount === amount).length;

  it("422 for a body that differs only in a timestamp or a request id; the upstream is charged once", async () => {
    const key = randomUUID();
    const sent = { amount: 4101, timestamp: "2026-11-28T10:00:00Z", requestId: "req_1" };
    expect((await world().gw("v1/charges", { key, body: sent })).status).toBe(200);
    const stamped = await world().gw("v1/charges", { key, body: { ...sent, timestamp: "2026-11-28T10:00:01Z" } });
    expect([stamped.status, ((await stamped.json()) as { type: string }).type]).toEqual([422, expect.stringMatching(/idempotency-key-reused$/)]);
    expect((await world().gw("v1/charges", { key, body: { ...sent, requestId: "req_2" } })).status).toBe(422);
    expect(charges(4101)).toBe(1);
  });

  it("a project-wide ignoreFields (meant for agents' arguments) does not reach a route's body", async () => {
    await world().policies.put("*", { ignoreFields: ["requestId", "timestamp"] });
    const key = randomUUID();
    const sent = { amount: 4102, requestId: "req_1" };
    expect((await world().gw("v1/charges", { key, body: sent })).status).toBe(200);
    expect((await world().gw("v1/charges", { key, body: { ...sent, requestId: "req_2" } })).status).toBe(422);
    expect(charges(4102)).toBe(1);
    // The route's effective policy says so too: nothing ignored, from the built-in route default.
    const effective = (await world().policies.effective("POST /gw/pay/v1/charges")) as { policy: { ignoreFields: string[] }; sources: Record<string, string> };
    expect([effective.policy.ignoreFields, effective.sources.ignoreFields]).toEqual([[], "builtin"]);
  });

  it("a field the route's own policy lists is ignored: the same key with another timestamp replays", async () => {
    const base = `/api/v1/operator/projects/${world().projectId}/upstreams`;
    expect((await world().root.raw("POST", base, { kind: "http", name: "stamped", url: `${world().upstream.url}/` })).ok).toBe(true);
    await world().policies.put("POST /gw/stamped/v1/charges", { ignoreFields: ["timestamp"] });
    const key = randomUUID();
    const first = await world().gw("v1/charges", { key, body: { amount: 4103, timestamp: "t1" }, upstream: "stamped" });
    expect(first.status).toBe(200);
    const again = await world().gw("v1/charges", { key, body: { amount: 4103, timestamp: "t2" }, upstream: "stamped" });
    expect([again.status, again.headers.get("idempotent-replayed")]).toEqual([200, "true"]);
    expect(await again.json()).toEqual(await first.json());
    expect((await world().gw("v1/charges", { key, body: { amount: 4104, timestamp: "t1" }, upstream: "stamped" })).status).toBe(422);
    expect(charges(4103)).toBe(1);
  });
});
