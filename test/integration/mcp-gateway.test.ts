import path from "node:path";
import { mkdtempSync } from "node:fs";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { EffectivePolicyResponseSchema, PolicyChangeResponseSchema } from "../../lib/contract/admin-policies";
import { OutboundAllowlistEntrySchema } from "../../lib/contract/outbound";
import { OperatorPreviewSchema, PreviewListSchema } from "../../lib/contract/previews";
import { McpToolListSchema } from "../../lib/contract/upstreams";
import { CallStatusSchema } from "../../lib/contract/v1";
import { mcpTools } from "../../lib/sdk/adapters/ai-sdk-mcp";
import { runWithContext } from "../../lib/sdk/context";
import { PROVIDERS } from "../helpers/databases";
import { Client as ModernClient, StreamableHTTPClientTransport as ModernTransport } from "@modelcontextprotocol/client";
import { type Result, allowOutbound, decisionOf, gatewayClient, registerMcpUpstream, restartUntilSettled, retryUntilSettled, spawnAgent, withoutLoopDetection } from "../helpers/mcp-clients";
import { type RunningUpstream, startUpstream } from "../helpers/mcp-upstream";
import { sql } from "../helpers/sql";
import { waitFor } from "../helpers/storm-scenario";
import { type TwoProjects, twoProjectsOnSharedServer } from "../helpers/two-projects";

describe.each(PROVIDERS)("%s: MCP gateway over Streamable HTTP", (provider) => {
  let world: TwoProjects;
  let upstream: RunningUpstream;
  let client: Client;
  const effectsFor = (tool: string, orderId?: string) =>
    upstream.effects().filter((effect) => effect.tool === tool && (orderId === undefined || effect.args.orderId === orderId));

  beforeAll(async () => {
    const dir = mkdtempSync(path.join(inject("tmpRoot"), "mcp-"));
    upstream = await startUpstream(path.join(dir, "effects.jsonl"));
    world = await twoProjectsOnSharedServer(provider);
    await allowOutbound(world.root, world.projectA, "127.0.0.1");
    await registerMcpUpstream(world.root, world.projectA, "shop", upstream.url);
    client = await gatewayClient(world.server.baseUrl, "shop", world.agentA.apiKey);
  });
  afterAll(async () => {
    await client?.close();
    await world?.stop();
    await upstream?.stop();
  });

  it("lists the upstream's tools with their annotations, and refuses a bad key or an unknown upstream", async () => {
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(expect.arrayContaining(["refund_order", "get_order", "delete_customer"]));
    expect(tools.find((tool) => tool.name === "get_order")!.annotations).toMatchObject({ readOnlyHint: true });
    await expect(gatewayClient(world.server.baseUrl, "shop", "ig_not_a_key")).rejects.toThrow();
    await expect(gatewayClient(world.server.baseUrl, "nowhere", world.agentA.apiKey)).rejects.toThrow();
    await expect(gatewayClient(world.server.baseUrl, "shop", world.agentB.apiKey)).rejects.toThrow();
  });

  it("the tools page's view: every MCP upstream's tools with their annotations, and an upstream that cannot be listed named", async () => {
    const { tools, unreachable } = await world.root.call(McpToolListSchema, "GET", world.root.p(world.projectA, "/mcp-tools"));
    expect(tools.find((tool) => tool.tool === "shop__get_order")).toEqual({ tool: "shop__get_order", upstream: "shop", name: "get_order", annotations: { readOnlyHint: true } });
    expect(tools.find((tool) => tool.tool === "shop__delete_customer")?.annotations).toEqual({ destructiveHint: true });
    expect(unreachable).toEqual([]);
    // Another project's upstreams never show.
    expect(await world.root.call(McpToolListSchema, "GET", world.root.p(world.projectB, "/mcp-tools"))).toEqual({ tools: [], unreachable: [] });
  });

  it("a duplicate call replays the stored result unchanged: one refund", async () => {
    const args = { orderId: "o-dup", amount: 42 };
    const first = (await client.callTool({ name: "refund_order", arguments: args })) as Result;
    const second = (await client.callTool({ name: "refund_order", arguments: args })) as Result;
    expect(decisionOf(first)).toBe("execute");
    expect(decisionOf(second)).toBe("replay");
    expect(second.content).toEqual(first.content);
    expect(second.structuredContent).toEqual({ refundId: "re_o-dup", amount: 42 });
    expect(second._meta?.["idemgate/callId"]).toBe(first._meta?.["idemgate/callId"]);
    expect(effectsFor("refund_order", "o-dup")).toHaveLength(1);
    expect(effectsFor("refund_order", "o-dup")[0]!.idempotencyKey).toBe(first._meta?.["idemgate/key"]);
  });

  it("20 concurrent identical calls: one execution, 19 replays", async () => {
    // Duplicates that arrive while the first runs latch onto it; on a loaded machine some arrive
    // only after it finished, and those are steps of the run that three in a row would make the
    // loop detector block. Whether one arrives in time is the machine's timing, not the gate's
    // behaviour: with the detector off every duplicate is a replay either way.
    const results = await withoutLoopDetection(world, async () => {
      const args = { orderId: "o-burst", amount: 7, slowMs: 2_000 };
      return (await Promise.all(Array.from({ length: 20 }, () => client.callTool({ name: "refund_order", arguments: args })))) as Result[];
    });
    expect(effectsFor("refund_order", "o-burst")).toHaveLength(1);
    expect(results.filter((result) => decisionOf(result) === "execute")).toHaveLength(1);
    expect(results.filter((result) => decisionOf(result) === "replay"), JSON.stringify(results.map((r) => [decisionOf(r), r.content]))).toHaveLength(19);
    for (const result of results) expect(result.isError ?? false).toBe(false);
  });

  it("progress notifications from the upstream reach the client", async () => {
    const progress: number[] = [];
    const result = (await client.callTool({ name: "refund_order", arguments: { orderId: "o-progress", slowMs: 500 } }, undefined, { onprogress: (p) => progress.push(p.progress) })) as Result;
    expect(decisionOf(result)).toBe("execute");
    expect(progress.length).toBeGreaterThan(0);
  });

  it("a client-side timeout (the SDK client cancels the call): the cancel reaches the upstream; one that finishes anyway is recorded, so the retry replays — one shipment, never a second", async () => {
    // Short leases, so an abandoned attempt's lease would lapse within the test.
    await world.root.call(PolicyChangeResponseSchema, "PUT", `/api/v1/admin/projects/${world.projectA}/policies/shop__ship_order`, {
      policy: { leaseSeconds: 2 },
      reason: "test: a cancelled call's lease lapses quickly",
    });
    try {
      const args = { orderId: "o-timeout", slowMs: 2_000 };
      const cancels = () => upstream.effects().filter((effect) => effect.tool === "notifications/cancelled").length;
      const cancelsBefore = cancels();
      // The client gives up once the upstream has started the call, not after a fixed 200 ms: on a
      // loaded machine the request may not even have arrived by then.
      const giveUp = new AbortController();
      const first = client.callTool({ name: "ship_order", arguments: args }, undefined, { signal: giveUp.signal }).catch((error: unknown) => error);
      await waitFor(async () => effectsFor("ship_order:started", "o-timeout").length > 0, 60_000, "the upstream to start the call");
      giveUp.abort(new Error("timed out"));
      expect(await first).toBeInstanceOf(Error);
      await waitFor(async () => cancels() > cancelsBefore, 30_000, "the cancel to reach the upstream");
      // This upstream serves each request on a fresh instance, so the cancel cannot stop it: it
      // ships, and the gateway, still listening, records that. (On a machine so starved that it
      // answered after the gateway's grace, the retry is told to verify instead — never a rerun.)
      const answered = await retryUntilSettled(client, { name: "ship_order", arguments: args });
      expect(["replay", "verify"]).toContain(decisionOf(answered));
      if (decisionOf(answered) === "replay") expect(JSON.stringify(answered.content)).toContain("shipped order o-timeout");
      await expect.poll(() => effectsFor("ship_order", "o-timeout").length, { timeout: 30_000 }).toBe(1);
      expect(effectsFor("ship_order", "o-timeout")).toHaveLength(1);
    } finally {
      await world.root.call(PolicyChangeResponseSchema, "PUT", `/api/v1/admin/projects/${world.projectA}/policies/shop__ship_order`, { policy: {}, reason: "test: back to the defaults" });
    }
  });

  it("a paraphrased re-plan of the same order replays: by a named scope, and by the policy's scopeFrom", async () => {
    const meta = { "idemgate/scope": "order:o-plan" };
    const first = (await client.callTool({ name: "refund_order", arguments: { orderId: "o-plan", amount: 10, note: "customer asked" }, _meta: meta })) as Result;
    const replanned = (await client.callTool({ name: "refund_order", arguments: { orderId: "o-plan", amount: 10.0, note: "refund as requested by the customer" }, _meta: meta })) as Result;
    expect([decisionOf(first), decisionOf(replanned)]).toEqual(["execute", "replay"]);
    expect(effectsFor("refund_order", "o-plan")).toHaveLength(1);

    await world.root.call(PolicyChangeResponseSchema, "PUT", `/api/v1/admin/projects/${world.projectA}/policies/shop__refund_order`, {
      policy: { scopeFrom: ["/orderId"] },
      reason: "refunds are per order",
    });
    const byOrder = (await client.callTool({ name: "refund_order", arguments: { orderId: "o-scope", amount: 5, note: "late delivery" } })) as Result;
    const paraphrased = (await client.callTool({ name: "refund_order", arguments: { orderId: "o-scope", amount: "5.00", note: "refund: parcel arrived late" } })) as Result;
    const otherOrder = (await client.callTool({ name: "refund_order", arguments: { orderId: "o-scope-2", amount: 5, note: "late delivery" } })) as Result;
    expect([decisionOf(byOrder), decisionOf(paraphrased), decisionOf(otherOrder)]).toEqual(["execute", "replay", "execute"]);
    expect(effectsFor("refund_order", "o-scope")).toHaveLength(1);
    expect(effectsFor("refund_order", "o-scope-2")).toHaveLength(1);
  });

  it("the AI SDK adapter's MCP tools carry the run and scope in _meta: a re-plan with a new toolCallId replays", async () => {
    const tools = await mcpTools(client, { tools: { refund_order: { scope: "orderId" } } });
    const refund = tools.refund_order!.execute!;
    const options = (toolCallId: string) => ({ toolCallId, messages: [] });
    const [first, replanned] = (await runWithContext({ runId: "run-ai-mcp" }, async () => [
      await refund({ orderId: "o-ai", amount: 12, note: "first plan" }, options("call_1")),
      await refund({ orderId: "o-ai", amount: 12, note: "re-planned wording" }, options("call_2")),
    ])) as [Result, Result];
    expect([decisionOf(first), decisionOf(replanned)]).toEqual(["execute", "replay"]);
    expect(effectsFor("refund_order", "o-ai")).toHaveLength(1);
    const rows = await sql<{ run_id: string; scope: string; tool_call_id: string }>(world.databaseUrl, "SELECT run_id, scope, tool_call_id FROM call_records WHERE project_id = $1 AND tool = $2 AND scope = $3", [world.projectA, "shop__refund_order", "orderId:o-ai"]);
    expect(rows).toEqual([{ run_id: "run-ai-mcp", scope: "orderId:o-ai", tool_call_id: "call_1" }]);
  });

  it("policies seeded from annotations: the read-only tool is never deduped; an explicit policy wins", async () => {
    const seeded = await world.root.call(EffectivePolicyResponseSchema, "GET", `/api/v1/admin/projects/${world.projectA}/policies/shop__get_order`);
    expect(seeded.policy.effect).toBe("read");
    // The same read twice in one run: a write would replay the second; a read runs both times.
    const reads = [(await client.callTool({ name: "get_order", arguments: { orderId: "o-read" } })) as Result, (await client.callTool({ name: "get_order", arguments: { orderId: "o-read" } })) as Result];
    expect(reads.map(decisionOf)).toEqual(["execute", "execute"]);
    expect(effectsFor("get_order", "o-read")).toHaveLength(2);

    // A second upstream whose read-only tool an admin declared a write before anyone listed it.
    await registerMcpUpstream(world.root, world.projectA, "shop2", upstream.url);
    await world.root.call(PolicyChangeResponseSchema, "PUT", `/api/v1/admin/projects/${world.projectA}/policies/shop2__get_order`, { policy: { effect: "write" }, reason: "reads are billed" });
    const shop2 = await gatewayClient(world.server.baseUrl, "shop2", world.agentA.apiKey);
    try {
      await shop2.listTools();
      const first = (await shop2.callTool({ name: "get_order", arguments: { orderId: "o-billed" } })) as Result;
      const second = (await shop2.callTool({ name: "get_order", arguments: { orderId: "o-billed" } })) as Result;
      expect([decisionOf(first), decisionOf(second)]).toEqual(["execute", "replay"]);
      expect(effectsFor("get_order", "o-billed")).toHaveLength(1);
    } finally {
      await shop2.close();
    }
  });

  it("a destructive tool: a resend asks an operator (approval_required); once approved, the next call runs once", async () => {
    // Deleting a customer is keyed by the customer, whatever run asks (each call below is its own run).
    await world.root.call(PolicyChangeResponseSchema, "PUT", `/api/v1/admin/projects/${world.projectA}/policies/shop__delete_customer`, {
      policy: { keyStrategy: "scope", scopeFrom: ["/customerId"], bypass: "approval" },
      reason: "one deletion per customer",
    });
    let run = 0;
    const del = (resend?: string) =>
      client.callTool({ name: "delete_customer", arguments: { customerId: "c-1" }, _meta: { "idemgate/runId": `run-del-${run++}`, ...(resend ? { "idemgate/resend": resend } : {}) } }) as Promise<Result>;
    expect(decisionOf(await del())).toBe("execute");
    expect(decisionOf(await del())).toBe("replay");
    const asked = await del("the customer signed up again and asked to be deleted again");
    expect(asked.isError).toBe(true);
    expect(decisionOf(asked)).toBe("approval_required");
    expect(JSON.stringify(asked.content)).toMatch(/operator's approval/);
    const requestId = asked._meta?.["idemgate/requestId"] as string;
    const pending = await del("the customer signed up again and asked to be deleted again");
    expect([decisionOf(pending), pending._meta?.["idemgate/requestId"]]).toEqual(["approval_required", requestId]);
    expect(upstream.effects().filter((effect) => effect.tool === "delete_customer")).toHaveLength(1);

    await world.root.approve(world.projectA, requestId, "confirmed with the customer");
    const resent = await del("the customer signed up again and asked to be deleted again");
    expect(decisionOf(resent)).toBe("execute");
    expect(resent._meta?.["idemgate/key"]).toMatch(/:g2$/);
    expect(decisionOf(await del())).toBe("replay");
    expect(upstream.effects().filter((effect) => effect.tool === "delete_customer")).toHaveLength(2);
  });

  it("2026-07-28 with URL elicitation: a resend waits for the operator in an input_required round; the client's own answer approves nothing", async () => {
    const asked: string[] = [];
    let approveOnAsk = false;
    const modern = new ModernClient({ name: "modern-test-client", version: "1.0.0" }, { capabilities: { elicitation: { url: {} } }, versionNegotiation: { mode: "auto" } });
    modern.setRequestHandler("elicitation/create", async (request) => {
      const { message, url } = request.params as { message: string; url: string };
      asked.push(url);
      expect(message).toMatch(/needs an operator's approval/);
      // The user follows the link and an operator approves there; or nobody does.
      if (approveOnAsk) await world.root.approve(world.projectA, /resend request (\S+?)\)/.exec(message)![1]!, "confirmed by phone");
      return { action: "accept" };
    });
    await modern.connect(new ModernTransport(new URL(`${world.server.baseUrl}/mcp/shop`), { requestInit: { headers: { authorization: `Bearer ${world.agentA.apiKey}` } } }));
    try {
      let run = 0;
      const del = (resend?: string) =>
        modern.callTool({ name: "delete_customer", arguments: { customerId: "c-modern" }, _meta: { "idemgate/runId": `run-modern-${run++}`, ...(resend ? { "idemgate/resend": resend } : {}) } }) as Promise<Result>;
      const deletions = () => upstream.effects().filter((effect) => effect.tool === "delete_customer" && effect.args.customerId === "c-modern").length;
      expect(decisionOf(await del())).toBe("execute");

      // Nobody approves: the client's "accept" is no approval; after five waits the call ends, not run.
      const unanswered = await del("asked again by the customer");
      expect(asked).toHaveLength(5);
      expect(asked[0]).toMatch(new RegExp(`^http://(127\\.0\\.0\\.1|localhost):${new URL(world.server.baseUrl).port}/projects/${world.projectA}/approvals$`));
      expect([unanswered.isError, decisionOf(unanswered)]).toEqual([true, "approval_required"]);
      expect(deletions()).toBe(1);

      // An operator approves while the client waits: the same call then runs once.
      approveOnAsk = true;
      const approved = await del("asked again by the customer");
      expect([approved.isError ?? false, decisionOf(approved)]).toEqual([false, "execute"]);
      expect(asked).toHaveLength(6);
      expect(deletions()).toBe(2);
    } finally {
      await modern.close();
    }
  });

  it("a tool under preview: approve — the gateway previews the call, an operator approves it, the call then runs once", async () => {
    await world.root.call(PolicyChangeResponseSchema, "PUT", `/api/v1/admin/projects/${world.projectA}/policies/shop__refund_order`, {
      policy: { preview: "approve" },
      reason: "refunds are looked at first",
    });
    try {
      const args = { orderId: "o-preview", amount: 99 };
      const first = (await client.callTool({ name: "refund_order", arguments: args })) as Result;
      expect([first.isError, decisionOf(first)]).toEqual([true, "preview_required"]);
      expect(JSON.stringify(first.content)).toMatch(/approve its preview/);
      const previewId = first._meta?.["idemgate/previewId"] as string;
      const again = (await client.callTool({ name: "refund_order", arguments: args })) as Result;
      expect([decisionOf(again), again._meta?.["idemgate/previewId"]]).toEqual(["preview_required", previewId]);
      expect(effectsFor("refund_order", "o-preview")).toHaveLength(0);
      // One inbox entry for the one call, however often it is called (#37).
      const inbox = await world.root.call(PreviewListSchema, "GET", world.root.p(world.projectA, "/previews?limit=200"));
      expect(inbox.previews.filter((p) => p.tool === "shop__refund_order" && p.status === "pending").map((p) => p.previewId)).toEqual([previewId]);

      await world.root.call(OperatorPreviewSchema, "POST", world.root.p(world.projectA, `/previews/${previewId}/approve`), { note: "amount checked" });
      const ran = (await client.callTool({ name: "refund_order", arguments: args })) as Result;
      expect([ran.isError ?? false, decisionOf(ran)]).toEqual([false, "execute"]);
      expect(decisionOf((await client.callTool({ name: "refund_order", arguments: args })) as Result)).toBe("replay");
      expect(effectsFor("refund_order", "o-preview")).toHaveLength(1);
    } finally {
      await world.root.call(PolicyChangeResponseSchema, "PUT", `/api/v1/admin/projects/${world.projectA}/policies/shop__refund_order`, { policy: { preview: "none" }, reason: "back to no previews" });
    }
  });

  it("an isError result is a recorded failure that replays as one; a malformed reply is never a success", async () => {
    const declined = (await client.callTool({ name: "decline", arguments: { orderId: "o-x" } })) as Result;
    expect(declined.isError).toBe(true);
    expect(decisionOf(declined)).toBe("execute");
    const again = (await client.callTool({ name: "decline", arguments: { orderId: "o-x" } })) as Result;
    expect(again.isError).toBe(true);
    expect(decisionOf(again)).toBe("replay");
    expect(JSON.stringify(again.content)).toContain("card declined");
    expect(effectsFor("decline")).toHaveLength(1);

    const garbled = (await client.callTool({ name: "garbled", arguments: {} })) as Result;
    expect(garbled.isError).toBe(true);
    expect(JSON.stringify(garbled.content)).toMatch(/not a valid tool result/);
    const states = await sql<{ state: string }>(world.databaseUrl, "SELECT state FROM call_records WHERE project_id = $1 AND tool = $2", [world.projectA, "shop__garbled"]);
    expect(states.map((row) => row.state)).toEqual(["failed"]);
  });

  it("an isError result under toolErrors: retryable is released, so the next identical call runs it again", async () => {
    await world.root.call(PolicyChangeResponseSchema, "PUT", `/api/v1/admin/projects/${world.projectA}/policies/shop__decline`, {
      policy: { toolErrors: "retryable" },
      reason: "declines are transient here",
    });
    const first = (await client.callTool({ name: "decline", arguments: { orderId: "o-retry" } })) as Result;
    const second = (await client.callTool({ name: "decline", arguments: { orderId: "o-retry" } })) as Result;
    expect([decisionOf(first), decisionOf(second)]).toEqual(["execute", "execute"]);
    expect([first._meta?.["idemgate/retryable"], second._meta?.["idemgate/attempt"]]).toEqual([true, 2]);
    expect(first.isError).toBe(true);
    expect(effectsFor("decline", "o-retry")).toHaveLength(2);
  });

  it("the upstream's answer lost mid-call: unknown, then verify once the lease lapses — never run again; an operator settles it", async () => {
    await world.root.call(PolicyChangeResponseSchema, "PUT", `/api/v1/admin/projects/${world.projectA}/policies/shop__sever`, {
      policy: { leaseSeconds: 2 },
      reason: "short leases, so the test sees the lapse",
    });
    const args = { orderId: "o-sever" };
    const lost = (await client.callTool({ name: "sever", arguments: args })) as Result;
    expect(lost.isError).toBe(true);
    expect(lost._meta?.["idemgate/outcome"]).toBe("unknown");
    const callId = lost._meta?.["idemgate/callId"] as string;
    let verify: Result | null = null;
    await waitFor(
      async () => {
        const again = (await client.callTool({ name: "sever", arguments: args })) as Result;
        expect(["in_progress", "verify"]).toContain(decisionOf(again));
        if (decisionOf(again) === "verify") verify = again;
        return verify !== null;
      },
      60_000,
      "a retry to be answered verify",
    );
    expect(verify!.isError).toBe(true);
    expect(JSON.stringify(verify!.content)).toMatch(/may or may not have taken effect/);
    expect(verify!._meta?.["idemgate/callId"]).toBe(callId);
    expect(effectsFor("sever", "o-sever")).toHaveLength(1);

    await world.root.call(CallStatusSchema, "POST", world.root.p(world.projectA, `/calls/${callId}/resolve`), {
      outcome: "succeeded",
      result: { content: [{ type: "text", text: "found downstream: refunded" }] },
      note: "checked the payment provider",
    });
    const settled = (await client.callTool({ name: "sever", arguments: args })) as Result;
    expect(decisionOf(settled)).toBe("replay");
    expect(JSON.stringify(settled.content)).toContain("found downstream");
    expect(effectsFor("sever", "o-sever")).toHaveLength(1);
  });

  it("upstream down: a clear retryable isError, nothing recorded as executed, and the next call runs once it is back", async () => {
    const down = await startUpstream(path.join(mkdtempSync(path.join(inject("tmpRoot"), "mcp-down-")), "effects.jsonl"));
    await registerMcpUpstream(world.root, world.projectA, "flaky", down.url);
    await down.stop();
    const flaky = await gatewayClient(world.server.baseUrl, "flaky", world.agentA.apiKey);
    try {
      const result = (await flaky.callTool({ name: "refund_order", arguments: { orderId: "o-down" } })) as Result;
      expect(result.isError).toBe(true);
      expect(JSON.stringify(result.content)).toMatch(/unreachable/);
      expect(JSON.stringify(result.content)).toMatch(/retryable/);
      expect(result._meta?.["idemgate/retryable"]).toBe(true);
      const rows = await sql<{ state: string }>(world.databaseUrl, "SELECT state FROM call_records WHERE project_id = $1 AND tool = $2", [world.projectA, "flaky__refund_order"]);
      expect(rows.map((row) => row.state)).not.toContain("succeeded");
    } finally {
      await flaky.close();
    }
  });
  it("an upstream URL outside the allowlist (a metadata address) is refused at registration, and at use once the entry that admitted it is removed: a clear error, nothing stored", async () => {
    const refused = await world.root.expectError("POST", world.root.p(world.projectA, "/upstreams"), { kind: "mcp", transport: "streamable_http", name: "metadata", url: "http://169.254.169.254/mcp" });
    expect(refused.status).toBe(400);
    expect(refused.body.error.message).toMatch(/allowlist/);
    expect(refused.body.error.issues?.map((issue) => issue.path)).toEqual([["url"]]);
    expect(await sql(world.databaseUrl, "SELECT id FROM upstreams WHERE project_id = $1 AND name = $2", [world.projectA, "metadata"])).toHaveLength(0);
    // Registered while an entry admitted it, which an admin then removes: every call is still checked.
    const entry = await allowOutbound(world.root, world.projectA, "169.254.169.254");
    await registerMcpUpstream(world.root, world.projectA, "metadata", "http://169.254.169.254/mcp");
    await world.root.call(OutboundAllowlistEntrySchema, "DELETE", world.root.p(world.projectA, `/outbound-allowlist/${entry.id}`));
    const outside = await gatewayClient(world.server.baseUrl, "metadata", world.agentA.apiKey);
    try {
      const result = (await outside.callTool({ name: "refund_order", arguments: { orderId: "o-meta" } })) as Result;
      expect(result.isError).toBe(true);
      expect(JSON.stringify(result.content)).toMatch(/allowlist/);
      const rows = await sql(world.databaseUrl, "SELECT id FROM call_records WHERE project_id = $1 AND tool = $2", [world.projectA, "metadata__refund_order"]);
      expect(rows).toHaveLength(0);
    } finally {
      await outside.close();
    }
  });

  it("a client process SIGKILLed mid-call and restarted on the same session: one refund, and the restart gets it", async () => {
    const args = JSON.stringify({ orderId: "o-kill", amount: 9, slowMs: 3_000 });
    const common = { url: world.server.baseUrl, upstream: "shop", key: world.agentA.apiKey, args };
    const first = spawnAgent(common);
    const { sessionId } = (await first.waitFor("sessionId")) as { sessionId: string };
    await first.waitFor("calling");
    // Killed once the gate has claimed the call, so the crash really is mid-call.
    await waitFor(async () => (await sql(world.databaseUrl, "SELECT id FROM call_records WHERE project_id = $1 AND run_id = $2", [world.projectA, `mcp:${sessionId}`])).length > 0, 60_000, "the gate to claim the call");
    first.child.kill("SIGKILL");
    // The restart asks again until the first attempt has finished: on a loaded machine the gateway's
    // latch may end before the upstream's 3 s call does, and in_progress is the honest answer then.
    const result = await restartUntilSettled(() => spawnAgent({ ...common, session: sessionId }));
    expect(result.isError ?? false).toBe(false);
    expect(decisionOf(result)).toBe("replay");
    expect(effectsFor("refund_order", "o-kill")).toHaveLength(1);
  });
});
