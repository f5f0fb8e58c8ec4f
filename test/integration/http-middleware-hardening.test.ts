import { createHash, randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DIGEST_FIELD } from "../../lib/core/canonical";
import { currentToolCall } from "../../lib/sdk";
import { withIdempotency } from "../../lib/sdk/http";
import { payloadArgs, toolName } from "../../lib/sdk/http/idempotency-core";
import { headerKeeper, toStored } from "../../lib/sdk/http/stored-response";
import { type TestGate, inProcessGate } from "../unit/sdk/helpers";
import { problemType } from "../helpers/problem-type";

const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");
const PIN_SPACE = 10_000;
const form = (pin: string) => `account=acct_7&pin=${pin}`;

/**
 * The HTTP middleware fingerprints a non-JSON body by its SHA-256 (#16, the class of item 3). Sent
 * as a plain field, that hash was stored in the record's args, which viewers and agents read: a
 * short form body (a PIN) came back from it by brute force. It now goes as the gate's digest
 * stand-in: fingerprinted as before (records of older versions keep their replay and 422
 * semantics), stored as a tag keyed with the install's secret.
 */
describe("HTTP middleware: a non-JSON body's digest is keyed at rest", () => {
  let gate: TestGate;
  let runs = 0;
  const callIds: string[] = [];
  const route = "/v1/pins";
  let post: (key: string, body: string) => Promise<Response>;

  beforeAll(async () => {
    gate = await inProcessGate();
    // The Fetch adapter as a route module exports it, called with real Requests.
    const served = withIdempotency({ gate: gate.gate, caller: null, route }, async () => {
      runs++;
      callIds.push(currentToolCall()!.callId);
      return new Response(JSON.stringify({ ok: true }), { status: 201, headers: { "content-type": "application/json" } });
    });
    post = (key, body) =>
      served(new Request(`http://tool.test${route}`, { method: "POST", headers: { "idempotency-key": key, "content-type": "application/x-www-form-urlencoded" }, body }));
  });

  afterAll(async () => {
    await gate?.close();
  });

  it("the record holds a keyed tag, not the body's SHA-256; the same body replays and another is a 422", async () => {
    const key = randomUUID();
    const first = await post(key, form("4938"));
    expect(first.status).toBe(201);
    const record = await gate.store.findRecordById(gate.projectId, callIds.at(-1)!);
    expect(record!.args).not.toContain(sha256(form("4938")));
    expect(JSON.parse(record!.args!)).toMatchObject({ target: route, bodySha256: expect.stringMatching(/^\[REDACTED [0-9a-f]{16}\]$/) });

    // What a reader of the record could try: every PIN's body hash, against the args and the fingerprint.
    const search = (text: string) => {
      for (let n = 0; n < PIN_SPACE; n++) if (text.includes(sha256(form(String(n).padStart(4, "0"))))) return n;
      return null;
    };
    // The search finds a PIN in args as the middleware used to send them: the test can fail.
    expect(search(JSON.stringify({ target: route, bodySha256: sha256(form("0042")) }))).toBe(42);
    expect(search(`${record!.args} ${record!.argsFingerprint}`)).toBeNull();

    const again = await post(key, form("4938"));
    expect([again.status, again.headers.get("idempotent-replayed")]).toEqual([201, "true"]);
    expect((await post(key, form("4939"))).status).toBe(422);
    expect(runs).toBe(1);
  });

  it("a record an older middleware stored (the bare hash in its args) replays the same body, not a 422", async () => {
    const key = randomUUID();
    const body = form("1234");
    const before = runs;
    // The older middleware's args: the hash as a plain field.
    const legacyArgs = { target: route, bodySha256: sha256(body) };
    const stored = toStored({ status: 201, headers: [["content-type", "application/json"]], body: new TextEncoder().encode('{"ok":"legacy"}') }, headerKeeper(), 1 << 20);
    const legacy = await gate.gate.call({ tool: toolName("POST", route), runId: key, scope: key, toolCallId: key, args: legacyArgs }, () => stored);
    expect(legacy.status).toBe("executed");
    // Same fingerprint either way: the stand-in canonicalises to the bare hex.
    expect(payloadArgs(route, new TextEncoder().encode(body))).toEqual({ target: route, bodySha256: { [DIGEST_FIELD]: sha256(body) } });

    const replay = await post(key, body);
    expect([replay.status, replay.headers.get("idempotent-replayed")]).toEqual([201, "true"]);
    expect(await replay.json()).toEqual({ ok: "legacy" });
    expect((await post(key, form("4321"))).status).toBe(422);
    expect(runs).toBe(before);
  });
});

/**
 * Identifiers reach an in-process gate without the wire's schema (#16 item 4, the class): the
 * service refuses an invisible character in any id, and the middleware answers that as a 400
 * problem, not a 503 "retry later". A route longer than a tool name's 200 characters is not cut
 * to a name another route shares.
 */
describe("HTTP middleware: identities the gate can key", () => {
  let gate: TestGate;
  const ran: string[] = [];
  let serve: (request: Request) => Promise<Response>;

  beforeAll(async () => {
    gate = await inProcessGate();
    serve = withIdempotency({ gate: gate.gate, caller: null }, async (request) => {
      ran.push(new URL(request.url).pathname);
      return new Response(JSON.stringify({ path: new URL(request.url).pathname }), { status: 201, headers: { "content-type": "application/json" } });
    });
  });

  afterAll(async () => {
    await gate?.close();
  });

  it("a run id with an invisible character (a soft hyphen) is a 400 problem; nothing runs or is stored", async () => {
    const runId = `run\u00ad${randomUUID().slice(0, 8)}`;
    const res = await serve(new Request("http://tool.test/v1/orders", { method: "POST", headers: { "idemgate-run-id": runId, "content-type": "application/json" }, body: "{}" }));
    expect(res.status).toBe(400);
    expect(res.headers.get("content-type")).toBe("application/problem+json");
    expect(await res.json()).toMatchObject({ type: problemType("invalid-identity"), status: 400 });
    expect(ran).toEqual([]);
    expect(await gate.store.toolTraffic(gate.projectId, 0)).toEqual([]);
  });

  it("a run id header longer than an id is a 400, never cut to one another request shares", async () => {
    const stem = `run-${randomUUID()}-${"r".repeat(200)}`;
    const post = (runId: string) => serve(new Request("http://tool.test/v1/orders", { method: "POST", headers: { "idemgate-run-id": runId, "idemgate-step-id": "pay", "content-type": "application/json" }, body: "{}" }));
    const before = ran.length;
    for (const runId of [`${stem}-a`, `${stem}-b`]) {
      const res = await post(runId);
      expect(res.status).toBe(400);
      expect(await res.json()).toMatchObject({ type: problemType("idempotency-key-invalid") });
    }
    expect(ran.length).toBe(before);
  });

  it("two routes longer than a tool name, alike for their first 200 characters, are two tools: the same key runs each", async () => {
    const stem = `/v1/${"a".repeat(220)}`;
    const key = randomUUID();
    const post = (path: string) => serve(new Request(`http://tool.test${path}`, { method: "POST", headers: { "idempotency-key": key, "content-type": "application/json" }, body: "{}" }));
    const first = await post(`${stem}/one`);
    const second = await post(`${stem}/two`);
    expect([first.status, second.status]).toEqual([201, 201]);
    expect(second.headers.get("idempotent-replayed")).toBeNull();
    expect(await second.json()).toEqual({ path: `${stem}/two` });
    expect((await post(`${stem}/two`)).headers.get("idempotent-replayed")).toBe("true");
    expect(toolName("POST", `${stem}/one`).length).toBeLessThanOrEqual(200);
  });
});
