import { randomBytes } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { CallListSchema } from "../../lib/contract/calls";
import { AdminClient } from "../helpers/admin-client";
import { PROVIDERS } from "../helpers/databases";
import { type OperatorClient, createOperator } from "../helpers/operator-client";
import { runOnce, uniqueRun, uniqueTool } from "../helpers/policy-fixtures";
import { type TwoProjects, twoProjectsOnSharedServer } from "../helpers/two-projects";

/**
 * Issue #38 §2 "Find a call by what it did": `q` on the calls list finds the calls of a range by a
 * value in their args or result, case-insensitively, within the project only. Redacted fields are
 * stored masked, so a redacted value is never found, in args or in the result.
 */
describe.each(PROVIDERS)("%s: calls search by args and result", (provider) => {
  let world: TwoProjects;
  let policies: AdminClient;
  let viewer: OperatorClient;

  beforeAll(async () => {
    world = await twoProjectsOnSharedServer(provider);
    policies = new AdminClient(world.server.baseUrl, world.projectA);
    viewer = await createOperator(world.root, world.projectA, "viewer");
  });

  const search = async (query: Record<string, string>, project = world.projectA) => {
    const page = await viewer.call(CallListSchema, "GET", viewer.p(project, `/calls?${new URLSearchParams(query)}`));
    return page.calls.map((c) => c.callId);
  };

  it("finds a call by a value in its args or its result, case-insensitively, with the other filters; nothing else matches", async () => {
    const tag = randomBytes(5).toString("hex");
    const tool = uniqueTool("refund");
    const run = uniqueRun("search");
    const byArgs = await runOnce(world.agentA, { tool, runId: run, stepId: "a", args: { customer: `Cust-${tag}-Alice`, amount: 5 } }, { refundId: "rf_1" });
    const byResult = await runOnce(world.agentA, { tool, runId: run, stepId: "b", args: { customer: "someone else" } }, { note: `issued to ${tag}-bob` });
    await runOnce(world.agentA, { tool, runId: run, stepId: "c", args: { customer: "nobody" } }, { note: "nothing" });

    expect(await search({ q: `cust-${tag}-alice` })).toEqual([byArgs.callId]);
    expect(await search({ q: `${tag}-BOB` })).toEqual([byResult.callId]);
    expect(await search({ q: tag })).toEqual([byResult.callId, byArgs.callId]);
    expect(await search({ q: tag, tool: "another-tool" })).toEqual([]);
    // LIKE's wildcards are literal: "%" and "_" find only themselves.
    expect(await search({ q: `${tag}%` })).toEqual([]);
    expect(await search({ q: `${tag.slice(0, 4)}_${tag.slice(5)}` })).toEqual([]);
    // The range is the calls' first-seen range, as for the list without a search.
    expect(await search({ q: tag, to: new Date(Date.now() - 3_600_000).toISOString() })).toEqual([]);
  });

  it("a redacted field's value is never found, in args or in the result; the same value in an unredacted field is", async () => {
    const secret = `S3cret${randomBytes(5).toString("hex")}`;
    const tool = uniqueTool("card");
    await policies.put(tool, { redactFields: ["card", "token"] });
    const run = uniqueRun("redacted");
    await runOnce(world.agentA, { tool, runId: run, stepId: "args", args: { card: secret, amount: 7 } }, { ok: true });
    await runOnce(world.agentA, { tool, runId: run, stepId: "result", args: { amount: 8 } }, { token: secret, status: "paid" });
    expect(await search({ q: secret })).toEqual([]);
    expect(await search({ q: secret.toLowerCase() })).toEqual([]);
    expect(await search({ q: secret.slice(2, 10) })).toEqual([]);
    // The unredacted fields of the same calls are searchable, and so is the secret where no policy masks it.
    expect(await search({ q: "paid", tool })).toHaveLength(1);
    const plain = await runOnce(world.agentA, { tool: uniqueTool("note"), runId: run, stepId: "plain", args: { memo: secret } }, { ok: true });
    expect(await search({ q: secret })).toEqual([plain.callId]);
  });

  it("is project-scoped: another project's call with the value is not found, and its own search does not see ours", async () => {
    const tag = `shared-${randomBytes(5).toString("hex")}`;
    const ours = await runOnce(world.agentA, { tool: uniqueTool("x"), runId: uniqueRun("ours"), args: { value: tag } }, { ok: true });
    const theirs = await runOnce(world.agentB, { tool: uniqueTool("x"), runId: uniqueRun("theirs"), args: { value: tag } }, { ok: true });
    expect(await search({ q: tag })).toEqual([ours.callId]);
    // The viewer is not a member of project B: the search is refused, not answered with B's calls.
    const refused = await viewer.raw("GET", viewer.p(world.projectB, `/calls?q=${tag}`));
    expect(refused.status).toBe(404);
    expect(theirs.callId).not.toBe(ours.callId);
  });

  it("a bad search is a 400 naming the field", async () => {
    const res = await viewer.raw("GET", viewer.p(world.projectA, `/calls?q=${"x".repeat(201)}`));
    expect(res.status).toBe(400);
    expect(JSON.stringify(await res.json())).toContain("q");
  });
});
