import { randomUUID } from "node:crypto";
import http from "node:http";
import { gunzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CallListSchema } from "../../lib/contract/calls";
import { callerScoped } from "../../lib/sdk/http";
import { PROVIDERS } from "../helpers/databases";
import { type GatewayWorld, startGatewayWorld } from "../helpers/gateway-world";
import { sql } from "../helpers/sql";
import { problemType } from "../helpers/problem-type";
import { rawRequest } from "../helpers/raw-http";

/** Sends until an answer that is not a 409 (in progress), a 5xx or a transport failure: what a retrying client does. */
async function untilAnswered(send: () => Promise<Response>, budgetMs = 60_000): Promise<Response> {
  const deadline = Date.now() + budgetMs;
  for (;;) {
    const res = await send().catch(() => null);
    if (res && res.status !== 409 && res.status < 500) return res;
    await res?.body?.cancel();
    if (Date.now() > deadline) throw new Error("no answer within the budget");
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** The calls of one Idempotency-Key sent with the world's API key: its run is the key in that caller's scope. */
async function callsOfRun(world: GatewayWorld, key: string) {
  const runId = callerScoped(world.apiKeyId, key);
  const res = await world.root.raw("GET", `/api/v1/operator/projects/${world.projectId}/calls?runId=${encodeURIComponent(runId)}`);
  return CallListSchema.parse(await res.json()).calls;
}

/** The gateway in front of a real upstream that counts its charges, on one gate instance. */
describe("HTTP gateway /gw/{upstream}", () => {
  let world: GatewayWorld;

  beforeAll(async () => {
    world = await startGatewayWorld("sqlite");
  });

  afterAll(async () => {
    await world?.stop();
  });

  it("forwards once with the gate's key and the upstream's secret; the same Idempotency-Key replays", async () => {
    const key = randomUUID();
    const first = await world.gw("v1/charges", { key, body: { amount: 42 } });
    expect(first.status).toBe(200);
    const charge = await first.json();
    const again = await world.gw("v1/charges", { key, body: { amount: 42 } });
    expect(again.status).toBe(200);
    expect(await again.json()).toEqual(charge);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(again.headers.get("x-charge-id")).toBe(charge.chargeId);
    const seen = world.upstream.requests.filter((r) => r.path === "/v1/charges" && r.key && world.upstream.charges.find((c) => c.key === r.key && c.id === charge.chargeId));
    expect(seen).toHaveLength(1);
    // The gate's key (project-scoped), never the caller's; the upstream's secret, never the gate's API key.
    expect(seen[0]!.key).toMatch(/^[0-9a-f]{64}$/);
    expect(seen[0]!.authorization).toBe("Bearer sk_test_upstream");
    const [call] = await callsOfRun(world, key);
    expect(call).toMatchObject({ tool: "POST /gw/pay/v1/charges", status: "succeeded", replays: 1 });
  });

  it("400 without a key, 401 without the API key, 422 for another payload; the upstream is not called", async () => {
    const before = world.upstream.requests.length;
    const missing = await world.gw("v1/charges", { body: { amount: 1 } });
    expect(missing.status).toBe(400);
    expect(missing.headers.get("content-type")).toBe("application/problem+json");
    const anonymous = await fetch(`${world.servers[0]!.baseUrl}/gw/pay/v1/charges`, { method: "POST", body: "{}" });
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get("content-type")).toBe("application/problem+json");
    expect(world.upstream.requests.length).toBe(before);

    const key = randomUUID();
    expect((await world.gw("v1/charges", { key, body: { amount: 5 } })).status).toBe(200);
    expect((await world.gw("v1/charges", { key, body: { amount: 6 } })).status).toBe(422);
  });

  it("keys are the calling API key's: another key of the project sending the same Idempotency-Key and body is charged on its own, never handed the first key's response", async () => {
    const created = await world.root.raw("POST", `/api/v1/operator/projects/${world.projectId}/api-keys`, { name: "second caller" });
    expect(created.status).toBe(200);
    const second = ((await created.json()) as { key: string }).key;
    const key = randomUUID();
    const first = await world.gw("v1/charges", { key, body: { amount: 31 } });
    const firstCharge = (await first.json()) as { chargeId: string };
    const other = await world.gw("v1/charges", { key, body: { amount: 31 }, headers: { authorization: `Bearer ${second}` } });
    expect(other.status).toBe(200);
    expect(other.headers.get("idempotent-replayed")).toBeNull();
    const otherCharge = (await other.json()) as { chargeId: string };
    expect(otherCharge.chargeId).not.toBe(firstCharge.chargeId);
    expect(world.upstream.charges.filter((c) => c.amount === 31)).toHaveLength(2);
    // Each key's retry replays its own charge.
    const again = await world.gw("v1/charges", { key, body: { amount: 31 }, headers: { authorization: `Bearer ${second}` } });
    expect([again.headers.get("idempotent-replayed"), ((await again.json()) as { chargeId: string }).chargeId]).toEqual(["true", otherCharge.chargeId]);
  });

  it("proxies as RFC 9110 §7.6 says: headers named in Connection and Proxy-Connection stay on their hop both ways, Via names the gate, and a compressed response passes byte-exact with its Content-Encoding, first time and on replay", async () => {
    const key = randomUUID();
    const send = () =>
      rawRequest(`${world.servers[0]!.baseUrl}/gw/pay/v1/gzip`, {
        authorization: `Bearer ${world.apiKey}`,
        "idempotency-key": key,
        "content-type": "application/json",
        "accept-encoding": "gzip",
        connection: "keep-alive, x-private",
        "x-private": "this hop only",
        "proxy-connection": "keep-alive",
        "x-public": "forwarded",
      }, "{}");
    const first = await send();
    expect(first.status).toBe(200);
    const sent = world.upstream.requests.filter((r) => r.path === "/v1/gzip").at(-1)!;
    expect(sent.headers["x-private"]).toBeUndefined();
    expect(sent.headers["proxy-connection"]).toBeUndefined();
    expect(sent.headers["x-public"]).toBe("forwarded");
    expect(sent.headers.via).toBe("1.1 idemgate");
    expect(first.headers["content-encoding"]).toBe("gzip");
    expect(first.headers["x-hop-secret"]).toBeUndefined();
    expect(first.headers["proxy-connection"]).toBeUndefined();
    expect(first.headers.via).toBe("1.1 upstream-lb, 1.1 idemgate");
    expect(JSON.parse(gunzipSync(first.body).toString("utf8"))).toMatchObject({ acceptEncoding: "gzip" });

    const replay = await send();
    expect([replay.status, replay.headers["idempotent-replayed"], replay.headers["content-encoding"]]).toEqual([200, "true", "gzip"]);
    expect(replay.body.equals(first.body)).toBe(true);
    expect(world.upstream.requests.filter((r) => r.path === "/v1/gzip" && r.headers["idempotency-key"] === sent.headers["idempotency-key"])).toHaveLength(1);
  });

  it("an upstream's secret in its own secretHeader goes only to its origin: a redirect to another (allowed) origin does not carry it", async () => {
    const seen: http.IncomingHttpHeaders[] = [];
    const other = http.createServer((req, res) => {
      seen.push(req.headers);
      req.resume();
      res.writeHead(200, { "content-type": "application/json" }).end('{"landed":true}');
    });
    await new Promise<void>((resolve) => other.listen(0, "127.0.0.1", resolve));
    const port = (other.address() as { port: number }).port;
    try {
      const base = `/api/v1/operator/projects/${world.projectId}`;
      expect((await world.root.raw("POST", `${base}/outbound-allowlist`, { pattern: `127.0.0.1:${port}`, note: "another origin" })).ok).toBe(true);
      const created = await world.root.raw("POST", `${base}/upstreams`, { kind: "http", name: "keyed", url: `${world.upstream.url}/`, secret: "sk_only_for_pay", secretHeader: "x-api-key" });
      expect(created.status).toBe(200);
      const to = encodeURIComponent(`http://127.0.0.1:${port}/landing`);
      const res = await world.gw(`v1/redirect?to=${to}`, { key: randomUUID(), body: {}, upstream: "keyed" });
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ landed: true });
      expect(world.upstream.requests.filter((r) => r.path === "/v1/redirect").at(-1)!.headers["x-api-key"]).toBe("sk_only_for_pay");
      expect(seen).toHaveLength(1);
      expect(seen[0]!["x-api-key"]).toBeUndefined();
      expect(JSON.stringify(seen[0])).not.toContain("sk_only_for_pay");
    } finally {
      other.closeAllConnections();
      await new Promise((resolve) => other.close(resolve));
    }
  });

  it("client timeouts and retries of one intended charge: exactly one upstream effect", async () => {
    const key = randomUUID();
    const effects = () => world.upstream.charges.filter((c) => c.amount === 777).length;
    const attempts: (number | "timeout")[] = [];
    const final = await untilAnswered(async () => {
      try {
        const res = await world.gw("v1/charges", { key, body: { amount: 777, delayMs: 1_500 }, signal: AbortSignal.timeout(300) });
        attempts.push(res.status);
        return res;
      } catch (error) {
        attempts.push("timeout");
        throw error;
      }
    });
    expect(final.status).toBe(200);
    expect(attempts).toContain("timeout");
    expect(effects()).toBe(1);
  });

  it("is in the OpenAPI document, with its headers and problem answers", async () => {
    const doc = (await (await fetch(`${world.servers[0]!.baseUrl}/api/v1/openapi.json`)).json()) as { paths: Record<string, Record<string, { parameters?: { name: string; in: string }[]; responses: Record<string, unknown> }>> };
    const post = doc.paths["/gw/{upstream}/{path}"]!.post!;
    expect(post.parameters!.filter((p) => p.in === "header").map((p) => p.name)).toEqual(expect.arrayContaining(["idempotency-key", "idemgate-run-id", "idemgate-step-id", "idemgate-scope"]));
    expect(Object.keys(post.responses)).toEqual(expect.arrayContaining(["400", "403", "409", "422", "502"]));
  });

  it("an upstream's own key header and stored-response limit", async () => {
    const base = `/api/v1/operator/projects/${world.projectId}/upstreams`;
    const created = await world.root.raw("POST", base, { kind: "http", name: "paykey", url: `${world.upstream.url}/`, idempotencyHeader: "X-Idem-Key", maxStoredBytes: 100 });
    expect(created.status).toBe(200);
    expect(await created.json()).toMatchObject({ idempotencyHeader: "x-idem-key", maxStoredBytes: 100 });
    const key = randomUUID();
    expect((await world.gw("v1/charges", { key, body: { amount: 3 }, upstream: "paykey" })).status).toBe(200);
    const sent = world.upstream.requests.at(-1)!;
    expect(sent.headers["x-idem-key"]).toMatch(/^[0-9a-f]{64}$/);
    expect(sent.headers["idempotency-key"]).toBeUndefined();
    // 1000 bytes is over this upstream's 100: passed through, not replayable.
    const big = randomUUID();
    const first = await world.gw("v1/export?bytes=1000", { key: big, body: {}, upstream: "paykey" });
    expect((await first.arrayBuffer()).byteLength).toBe(1000);
    expect((await world.gw("v1/export?bytes=1000", { key: big, body: {}, upstream: "paykey" })).status).toBe(409);
  });

  it("a route's policy (set through the policy API like any tool's) names the headers a replay keeps, and a route that never replays streams large bodies through as a success", async () => {
    const base = `/api/v1/operator/projects/${world.projectId}/upstreams`;
    expect((await world.root.raw("POST", base, { kind: "http", name: "policed", url: `${world.upstream.url}/` })).ok).toBe(true);
    await world.policies.put("POST /gw/policed/v1/charges", { keepHeaders: ["content-type"] });
    const key = randomUUID();
    const first = await world.gw("v1/charges", { key, body: { amount: 8 }, upstream: "policed" });
    expect(first.headers.get("x-charge-id")).toMatch(/^ch_/);
    const charge = await first.json();
    const again = await world.gw("v1/charges", { key, body: { amount: 8 }, upstream: "policed" });
    expect(await again.json()).toEqual(charge);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(again.headers.get("content-type")).toMatch(/^application\/json/);
    expect(again.headers.get("x-charge-id")).toBeNull();

    // 3 MB, over the 1 MiB limit: under a replaying policy recorded as a failure (see the 1 GiB case), under refuse as the success it was.
    await world.policies.put("POST /gw/policed/v1/export", { onDuplicate: "refuse" });
    const big = randomUUID();
    const streamed = await world.gw("v1/export?bytes=3000000", { key: big, body: {}, upstream: "policed" });
    expect(streamed.status).toBe(200);
    expect((await streamed.arrayBuffer()).byteLength).toBe(3_000_000);
    const [call] = await callsOfRun(world, big);
    expect(call).toMatchObject({ tool: "POST /gw/policed/v1/export", status: "succeeded" });
    const refused = await world.gw("v1/export?bytes=3000000", { key: big, body: {}, upstream: "policed" });
    expect(refused.status).toBe(409);
    expect(((await refused.json()) as { detail: string }).detail).toMatch(/already processed \(succeeded/);
  });

  it("GET is forwarded ungated", async () => {
    const res = await world.gw("v1/nothing-here", { method: "GET" });
    expect(res.status).toBe(404);
  });

  it("an ungated GET streams from the first byte: the caller reads the upstream's first line while the upstream still holds its last", async () => {
    const id = randomUUID();
    const res = await world.gw(`v1/held?id=${id}`, { method: "GET" });
    expect(res.status).toBe(200);
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    let text = "";
    while (!text.includes("first\n")) {
      const chunk = await reader.read();
      if (chunk.done) break;
      text += decoder.decode(chunk.value, { stream: true });
    }
    expect(text).toBe("first\n");
    world.upstream.release(id);
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) text += decoder.decode(chunk.value, { stream: true });
    expect(text).toBe("first\nlast\n");
  });

  it("an upstream outside the allowlist is refused at registration (and a change of URL to one), and at use once its entry is removed, before anything is recorded or sent", async () => {
    const base = `/api/v1/operator/projects/${world.projectId}/upstreams`;
    const elsewhere = { kind: "http", name: "elsewhere", url: `http://127.0.0.1:${world.upstream.port + 1}/` };
    const refused = await world.root.expectError("POST", base, elsewhere);
    expect(refused.status).toBe(400);
    expect(refused.body.error.message).toMatch(new RegExp(`127\\.0\\.0\\.1:${world.upstream.port + 1} is not on this project's outbound allowlist`));
    expect(refused.body.error.issues?.map((issue) => issue.path)).toEqual([["url"]]);
    expect(await sql(world.db.url, "SELECT id FROM upstreams WHERE name = $1", ["elsewhere"])).toHaveLength(0);
    // A change of URL is checked the same way, and leaves the upstream as it was.
    const pay = (await sql<{ id: string; url: string; version: number }>(world.db.url, "SELECT id, url, version FROM upstreams WHERE name = $1", ["pay"]))[0]!;
    const moved = await world.root.expectError("PATCH", `${base}/${pay.id}`, { url: elsewhere.url });
    expect(moved.status).toBe(400);
    expect(moved.body.error.message).toMatch(/outbound allowlist/);
    expect(await sql(world.db.url, "SELECT url, version FROM upstreams WHERE id = $1", [pay.id])).toEqual([{ url: pay.url, version: pay.version }]);
    // Registered while an entry admitted it, which an admin then removes: every call is still checked.
    const allowlist = `/api/v1/operator/projects/${world.projectId}/outbound-allowlist`;
    const entry = (await (await world.root.raw("POST", allowlist, { pattern: `127.0.0.1:${world.upstream.port + 1}` })).json()) as { id: string };
    expect((await world.root.raw("POST", base, elsewhere)).ok).toBe(true);
    expect((await world.root.raw("DELETE", `${allowlist}/${entry.id}`)).ok).toBe(true);
    const key = randomUUID();
    const res = await world.gw("v1/charges", { key, body: { amount: 1 }, upstream: "elsewhere" });
    expect(res.status).toBe(403);
    expect(res.headers.get("content-type")).toBe("application/problem+json");
    expect(await res.json()).toMatchObject({ type: problemType("upstream-refused") });
    expect(await callsOfRun(world, key)).toEqual([]);
  });

  it("a redirect to a metadata address is refused, and not stored as a success", async () => {
    const key = randomUUID();
    const res = await world.gw("v1/redirect-to-metadata", { key, body: {} });
    expect(res.status).toBe(403);
    expect(await res.json()).toMatchObject({ type: problemType("upstream-refused") });
    const [call] = await callsOfRun(world, key);
    expect(call!.status).toBe("failed");
  });

  it("a 1 GiB response streams through unbuffered; it is recorded not replayable, never as a success", async () => {
    const key = randomUUID();
    const res = await world.gw("v1/export", { key, body: {} });
    expect(res.status).toBe(200);
    let received = 0;
    const reader = res.body!.getReader();
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) received += chunk.value.byteLength;
    expect(received).toBe(1024 ** 3);
    const [call] = await callsOfRun(world, key);
    expect(call!.status).toBe("failed");
    const again = await world.gw("v1/export", { key, body: {} });
    expect(again.status).toBe(409);
    expect(await again.json()).toMatchObject({ type: problemType("request-already-processed") });
  }, 300_000);
});

/** Two gate instances on one database, one of them killed mid-request: one upstream effect per intended charge. */
describe.each(PROVIDERS.filter((p) => p === "postgres"))("%s: HTTP gateway on two instances", (provider) => {
  let world: GatewayWorld;

  beforeAll(async () => {
    world = await startGatewayWorld(provider, 2);
    // A killed instance's lease lapses quickly (and, dead, it gets no grace), so the retry through the other one takes over soon.
    await world.policies.put("*", { leaseSeconds: 2, leaseGraceSeconds: 0 });
  });

  afterAll(async () => {
    await world?.stop();
  });

  it("duplicates spread over both instances: one charge per key", async () => {
    const keys = Array.from({ length: 10 }, () => randomUUID());
    const answers = await Promise.all(
      keys.flatMap((key, k) => [0, 1, 2, 3].map((i) => untilAnswered(() => world.gw("v1/charges", { key, body: { amount: 1000 + k, delayMs: 200 }, via: i % 2 })))),
    );
    expect(answers.every((res) => res.status === 200)).toBe(true);
    for (let k = 0; k < keys.length; k++) expect(world.upstream.charges.filter((c) => c.amount === 1000 + k)).toHaveLength(1);
  });

  it("SIGKILL of the instance forwarding a charge: the retry through the other instance forwards the same key, and the upstream charges once", async () => {
    const key = randomUUID();
    const inFlight = world.gw("v1/charges", { key, body: { amount: 4242, delayMs: 1_500 }, via: 0 }).catch(() => null);
    await expect.poll(() => world.upstream.charges.filter((c) => c.amount === 4242).length, { timeout: 30_000 }).toBe(1);
    await world.servers[0]!.kill();
    expect(await inFlight).toBeNull();
    const final = await untilAnswered(() => world.gw("v1/charges", { key, body: { amount: 4242, delayMs: 1_500 }, via: 1 }));
    expect(final.status).toBe(200);
    expect(world.upstream.charges.filter((c) => c.amount === 4242)).toHaveLength(1);
    const forwardedKeys = new Set(world.upstream.requests.filter((r) => r.key && world.upstream.charges.some((c) => c.amount === 4242 && c.key === r.key)).map((r) => r.key));
    expect(forwardedKeys.size).toBe(1);
  });
});
