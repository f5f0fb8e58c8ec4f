import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PROVIDERS } from "../helpers/databases";
import { type SharedGatewayWorld, gatewayWorldOnSharedServer } from "../helpers/gateway-world";
import { problemType } from "../helpers/problem-type";

/**
 * Human-approved resends through /gw (the same approvals as agent calls): `Idemgate-Resend:
 * <reason>` asks to run a completed key once more; an operator decides over the operator API
 * (the Approvals inbox's API); the same request sent again then runs once, under the key's next
 * generation, with that generation's key forwarded upstream.
 */
describe.each(PROVIDERS)("%s: resends through /gw", (provider) => {
  let world: SharedGatewayWorld;
  const resend = (reason: string) => ({ "idemgate-resend": reason });
  const problemOf = async (res: Response) => {
    expect(res.headers.get("content-type")).toBe("application/problem+json");
    return (await res.json()) as { type: string; detail: string; resendRequestId?: string };
  };
  const chargesOf = (amount: number) => world.upstream.charges.filter((c) => c.amount === amount);

  beforeAll(async () => {
    world = await gatewayWorldOnSharedServer(provider);
    // These tests send one key many times over (asks, replays, resends): the loop detector would
    // rightly block that run; here it is not what is tested.
    await world.policies.put("*", { loop: { enabled: false } });
  });

  afterAll(async () => {
    await world?.stop();
  });

  it("under bypass: approval the resend waits for an operator, then the same request runs once with the next generation's key", async () => {
    const key = randomUUID();
    const body = { amount: 9101 };
    const first = await world.gw("v1/charges", { key, body });
    expect(first.status).toBe(200);
    const original = (await first.json()) as { chargeId: string };
    const firstKey = world.upstream.charges.find((c) => c.id === original.chargeId)!.key!;

    const asked = await world.gw("v1/charges", { key, body, headers: resend("the customer was charged on a card that was then cancelled") });
    expect(asked.status).toBe(409);
    const pending = await problemOf(asked);
    expect(pending.type).toEqual(problemType("resend-approval-required"));
    expect(pending.resendRequestId).toMatch(/^rr_/);
    expect(pending.detail).toMatch(/operator's approval/);
    // Asking again files no second request; without the header the stored response replays.
    expect((await problemOf(await world.gw("v1/charges", { key, body, headers: resend("still waiting") }))).resendRequestId).toBe(pending.resendRequestId);
    const replayed = await world.gw("v1/charges", { key, body });
    expect([replayed.status, replayed.headers.get("idempotent-replayed")]).toEqual([200, "true"]);
    expect(chargesOf(9101)).toHaveLength(1);

    // The agent (its API key) cannot approve its own request; an operator does.
    const byAgent = await fetch(`${world.servers[0]!.baseUrl}/api/v1/operator/projects/${world.projectId}/resend-requests/${pending.resendRequestId}/approve`, {
      method: "POST",
      headers: { authorization: `Bearer ${world.apiKey}`, "content-type": "application/json" },
      body: JSON.stringify({ note: "self-approval" }),
    });
    expect(byAgent.ok).toBe(false);
    await world.root.approve(world.projectId, pending.resendRequestId!, "the new card is on file");

    const resent = await world.gw("v1/charges", { key, body, headers: resend("the customer was charged on a card that was then cancelled") });
    expect(resent.status).toBe(200);
    expect(resent.headers.get("idempotent-replayed")).toBeNull();
    const second = (await resent.json()) as { chargeId: string };
    expect(second.chargeId).not.toBe(original.chargeId);
    expect(chargesOf(9101)).toHaveLength(2);
    // The next generation's key went upstream, so a provider that dedupes on it charges again, once.
    expect(world.upstream.charges.find((c) => c.id === second.chargeId)!.key).toBe(`${firstKey}:g2`);

    // Done: a plain retry replays the newest generation; the header again asks for yet another run (and runs nothing).
    const after = await world.gw("v1/charges", { key, body });
    expect([after.status, ((await after.json()) as { chargeId: string }).chargeId]).toEqual([200, second.chargeId]);
    const another = await problemOf(await world.gw("v1/charges", { key, body, headers: resend("once more") }));
    expect(another.type).toEqual(problemType("resend-approval-required"));
    expect(another.resendRequestId).not.toBe(pending.resendRequestId);
    expect(chargesOf(9101)).toHaveLength(2);

    const audit = await world.root.audit(world.projectId);
    const actions = audit.entries.filter((e) => e.target.id === pending.resendRequestId).map((e) => e.action);
    expect(actions).toEqual(expect.arrayContaining(["resend.requested", "resend.approved", "resend.token_issued", "resend.token_used"]));
  });

  it("a denied resend runs nothing; under onDuplicate: refuse the 409 says how to ask; bypass: never refuses; bypass: allow runs at once", async () => {
    const upstreams = `/api/v1/operator/projects/${world.projectId}/upstreams`;
    for (const name of ["refusing", "never", "allowing"]) {
      expect((await world.root.raw("POST", upstreams, { kind: "http", name, url: `${world.upstream.url}/` })).ok).toBe(true);
    }
    await world.policies.put("POST /gw/refusing/v1/charges", { onDuplicate: "refuse" });
    await world.policies.put("POST /gw/never/v1/charges", { bypass: "never" });
    await world.policies.put("POST /gw/allowing/v1/charges", { onDuplicate: "refuse", bypass: "allow" });

    const key = randomUUID();
    expect((await world.gw("v1/charges", { key, body: { amount: 9201 }, upstream: "refusing" })).status).toBe(200);
    const refused = await problemOf(await world.gw("v1/charges", { key, body: { amount: 9201 }, upstream: "refusing" }));
    expect(refused.type).toEqual(problemType("request-already-processed"));
    expect(refused.detail).toMatch(/idemgate-resend/);
    const asked = await problemOf(await world.gw("v1/charges", { key, body: { amount: 9201 }, upstream: "refusing", headers: resend("duplicate order") }));
    await world.root.deny(world.projectId, asked.resendRequestId!, "it was charged already");
    const afterDenial = await world.gw("v1/charges", { key, body: { amount: 9201 }, upstream: "refusing", headers: resend("duplicate order") });
    expect(afterDenial.status).toBe(409);
    expect((await problemOf(afterDenial)).resendRequestId).not.toBe(asked.resendRequestId);
    expect(chargesOf(9201)).toHaveLength(1);

    const neverKey = randomUUID();
    expect((await world.gw("v1/charges", { key: neverKey, body: { amount: 9202 }, upstream: "never" })).status).toBe(200);
    const never = await world.gw("v1/charges", { key: neverKey, body: { amount: 9202 }, upstream: "never", headers: resend("please") });
    expect(never.status).toBe(403);
    expect((await problemOf(never)).type).toEqual(problemType("resend-refused"));
    expect(chargesOf(9202)).toHaveLength(1);

    const allowKey = randomUUID();
    expect((await world.gw("v1/charges", { key: allowKey, body: { amount: 9203 }, upstream: "allowing" })).status).toBe(200);
    expect((await world.gw("v1/charges", { key: allowKey, body: { amount: 9203 }, upstream: "allowing" })).status).toBe(409);
    expect((await world.gw("v1/charges", { key: allowKey, body: { amount: 9203 }, upstream: "allowing", headers: resend("a second shipment") })).status).toBe(200);
    expect(chargesOf(9203)).toHaveLength(2);

    // A malformed reason is a 400 before anything is asked.
    const blank = await world.gw("v1/charges", { key: allowKey, body: { amount: 9203 }, upstream: "allowing", headers: resend("   ") });
    expect(blank.status).toBe(400);
    expect((await problemOf(blank)).type).toEqual(problemType("resend-invalid"));
    expect(chargesOf(9203)).toHaveLength(2);
  });
});
