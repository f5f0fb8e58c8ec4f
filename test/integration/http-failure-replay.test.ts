import { randomUUID } from "node:crypto";
import { expect, it } from "vitest";
import { describeGatewayWorld, describeMiddlewareMatrix, postRaw } from "../helpers/middleware-matrix";

/**
 * Issue #35 §3: a stored response replays byte-identical with the headers that describe its
 * bytes. A handler's 4xx whose body is longer than a failure's error text (10,000 characters) was
 * kept without its body and replayed as a 409 "already processed"; it is kept whole now.
 */
describeMiddlewareMatrix("a long 4xx replays as itself", (mounted) => {
  it("a 422 with a 24,000-character body replays with its status, headers and bytes; the handler ran once", async () => {
    const id = randomUUID().slice(0, 8);
    const key = randomUUID();
    const text = JSON.stringify({ id, amount: 1, fail: 422, failTimes: 99, failDetail: 12_000 });
    const first = await postRaw(`${mounted().tool.baseUrl}/v1/refunds`, key, text);
    expect(first.status).toBe(422);
    expect(first.bytes.byteLength).toBeGreaterThan(24_000);
    const again = await postRaw(`${mounted().tool.baseUrl}/v1/refunds`, key, text);
    expect([again.status, again.headers.get("idempotent-replayed"), again.headers.get("x-failure"), again.headers.get("content-type")]).toEqual([
      422,
      "true",
      "attempt-1",
      first.headers.get("content-type"),
    ]);
    expect(again.bytes.equals(first.bytes)).toBe(true);
    expect(mounted().tool.executions.get(id)).toBe(1);
  });
});

describeGatewayWorld("a long 4xx replays as itself", (world) => {
  it("an upstream's 422 with a 20,000-character body replays byte-identical with its headers; the upstream is called once", async () => {
    const key = randomUUID();
    const send = () => world().gw("v1/echo?status=422&pad=20000", { key, body: { amount: 1 } });
    const first = await send();
    const firstBytes = Buffer.from(await first.arrayBuffer());
    expect([first.status, first.headers.get("content-type")]).toEqual([422, "application/json"]);
    const again = await send();
    const againBytes = Buffer.from(await again.arrayBuffer());
    expect([again.status, again.headers.get("idempotent-replayed"), again.headers.get("content-type")]).toEqual([422, "true", "application/json"]);
    expect(againBytes.equals(firstBytes)).toBe(true);
    expect(world().upstream.requests.filter((r) => r.path === "/v1/echo" && r.headers["idempotency-key"] !== undefined).length).toBe(1);
  });
});
