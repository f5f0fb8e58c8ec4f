import { beforeAll, describe, expect, it } from "vitest";
import type { BeginRequest, BeginResponse } from "../../lib/contract/v1";
import { AdminClient } from "../helpers/admin-client";
import { TestClient } from "../helpers/client";
import { PROVIDERS, type TestDatabase } from "../helpers/databases";
import { createTestProject } from "../helpers/fixtures";
import { runOnce, uniqueRun, uniqueTool } from "../helpers/policy-fixtures";
import { sharedServer } from "../helpers/shared-server";
import { sql } from "../helpers/sql";
import { waitFor } from "../helpers/storm-scenario";

/** What shadow mode records for each decision enforce gives (lib/core/shadow.ts). */
const WOULD: Record<string, string> = {
  execute: "would_execute",
  replay: "would_replay",
  in_progress: "would_wait",
  verify: "would_verify",
  refused: "would_refuse",
  conflict: "would_conflict",
  approval_required: "would_require_approval",
  preview_required: "would_require_preview",
  blocked: "would_block",
};

const CONCURRENT = 50;

/** The SDK sends the same begin again after a retryable 503 (a lock or pool timeout on a loaded machine). */
async function beginAsTheSdkDoes(client: TestClient, request: BeginRequest): Promise<BeginResponse> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await client.begin(request);
    } catch (error) {
      if (attempt >= 5 || !String(error).includes("HTTP 503")) throw error;
    }
  }
}

function tally(names: string[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const name of names) counts[name] = (counts[name] ?? 0) + 1;
  return counts;
}

/**
 * Shadow mode is a mapping of enforce's decision (lib/core/decide-begin.ts, shadowed): the same
 * concurrent traffic sent to an enforced tool and to a shadowed one is decided the same, decision
 * by decision (which of 50 concurrent begins wins a race is the database's choice, so the two are
 * compared as tallies of the same requests), and the shadowed calls all run.
 */
describe.each(PROVIDERS)("%s: shadow mode decides exactly as enforce, 50 begins at once", (provider) => {
  let db: Pick<TestDatabase, "url">;
  let client: TestClient;
  let admin: AdminClient;
  let projectId: string;

  beforeAll(async () => {
    // The run's shared server (its settings give 50 queued begins of one run the lock timeout they
    // need on a loaded machine): this file restarts nothing and reads only its own project's rows.
    const server = await sharedServer(provider);
    db = { url: server.databaseUrl };
    const project = await createTestProject(db.url);
    projectId = project.projectId;
    client = new TestClient(server.baseUrl, project.apiKey);
    admin = new AdminClient(server.baseUrl, projectId);
  });

  /** The same policy twice, one enforced and one shadowed; the traffic `make(tool, runId)` sent to each, 50 at once. */
  async function both(label: string, policy: Record<string, unknown>, make: (tool: string, runId: string) => BeginRequest[], before?: (tool: string, runId: string) => Promise<void>) {
    const ledger = async (tool: string, runId: string) =>
      sql<{ decision: string; shadow_decision: string | null }>(db.url, "SELECT decision, shadow_decision FROM events WHERE project_id = $1 AND tool = $2 AND run_id = $3 AND type = 'begin' ORDER BY id", [projectId, tool, runId]);
    const sides = [];
    for (const mode of ["enforce", "shadow"] as const) {
      const tool = uniqueTool(`${label}_${mode}`);
      const runId = uniqueRun(`${label}_${mode}`);
      await admin.put(tool, { ...policy, mode });
      await before?.(tool, runId);
      // What came before the 50 is committed with its answers (executions), so it is all there now.
      const earlier = (await ledger(tool, runId)).length;
      const answers = await Promise.all(make(tool, runId).map((request) => beginAsTheSdkDoes(client, request)));
      sides.push({ tool, runId, answers, earlier });
    }
    const [enforced, shadowed] = sides as [(typeof sides)[0], (typeof sides)[0]];
    // Every shadowed call runs; each says what enforce would have answered.
    for (const answer of shadowed.answers) expect(answer.decision, JSON.stringify(answer)).toBe("execute");
    const would = shadowed.answers.map((a) => (a as { shadowDecision?: string }).shadowDecision ?? "(none)");
    expect(tally(would)).toEqual(tally(enforced.answers.map((a) => WOULD[a.decision]!)));
    // The ledgers agree too: enforce's decisions are shadow's would_…, begin by begin.
    const total = (side: typeof enforced) => side.earlier + side.answers.length;
    // Decision-only lines (in_progress, blocked) are written a few milliseconds behind their answers.
    await waitFor(
      async () => (await ledger(enforced.tool, enforced.runId)).length >= total(enforced) && (await ledger(shadowed.tool, shadowed.runId)).length >= total(shadowed),
      20_000,
      "every begin on the ledger",
    );
    const enforcedLines = (await ledger(enforced.tool, enforced.runId)).slice(enforced.earlier).map((e) => WOULD[e.decision]!);
    const shadowLines = (await ledger(shadowed.tool, shadowed.runId)).slice(shadowed.earlier).map((e) => e.shadow_decision ?? "(none)");
    expect(tally(shadowLines)).toEqual(tally(enforcedLines));
    return { enforced: tally(enforced.answers.map((a) => a.decision)), shadowed: tally(would) };
  }

  it("in-flight duplicates under the default loop detector: one runs, the others are what enforce answers (in_progress → would_wait, never would_block)", async () => {
    // A duplicate of a running call is no step of the agent's: under enforce none is blocked as a loop.
    const result = await both("dup", {}, (tool, runId) => Array.from({ length: CONCURRENT }, () => ({ tool, runId, stepId: "charge", args: { amount: 42 } })));
    expect(result.enforced).toEqual({ execute: 1, in_progress: CONCURRENT - 1 });
    expect(result.shadowed).toEqual({ would_execute: 1, would_wait: CONCURRENT - 1 });
  });

  it("a budget of 5 calls a run under 50 concurrent distinct steps: 5 run, 45 blocked — and shadow reports exactly that", async () => {
    const result = await both("budget", { loop: { enabled: false }, budget: { maxCallsPerRun: 5 } }, (tool, runId) =>
      Array.from({ length: CONCURRENT }, (_, i) => ({ tool, runId, stepId: `sms_${i}`, args: { to: `+1555000${i}` } })),
    );
    expect(result.enforced).toEqual({ execute: 5, blocked: CONCURRENT - 5 });
    expect(result.shadowed).toEqual({ would_execute: 5, would_block: CONCURRENT - 5 });
  });

  it("a run already in a loop: 50 more of the same call at once are all blocked, in both modes", async () => {
    const policy = { keyStrategy: "toolCallId", loop: { enabled: true, repeats: 3 } };
    const result = await both(
      "loop",
      policy,
      (tool, runId) => Array.from({ length: CONCURRENT }, (_, i) => ({ tool, runId, toolCallId: `tc_late_${i}`, args: { q: "same" } })),
      async (tool, runId) => {
        for (const i of [1, 2]) await runOnce(client, { tool, runId, toolCallId: `tc_${i}`, args: { q: "same" } });
      },
    );
    expect(result.enforced).toEqual({ blocked: CONCURRENT });
    expect(result.shadowed).toEqual({ would_block: CONCURRENT });
  });

  it("a mix at once: duplicates of a running call, replays of a finished one, and new steps past a budget", async () => {
    const policy = { loop: { enabled: false }, budget: { maxCallsPerRun: 3 } };
    const result = await both(
      "mix",
      policy,
      (tool, runId) =>
        Array.from({ length: CONCURRENT }, (_, i) =>
          i % 3 === 0 ? { tool, runId, stepId: "done", args: { n: 0 } } : i % 3 === 1 ? { tool, runId, stepId: "running", args: { n: 1 } } : { tool, runId, stepId: `new_${i}`, args: { n: i } },
        ),
      async (tool, runId) => {
        await runOnce(client, { tool, runId, stepId: "done", args: { n: 0 } });
        await client.begin({ tool, runId, stepId: "running", args: { n: 1 } });
      },
    );
    // 17 replays, 17 waits on the running call, 16 new steps of which 1 fits the budget (2 spent).
    expect(result.enforced).toEqual({ replay: 17, in_progress: 17, execute: 1, blocked: 15 });
    expect(result.shadowed).toEqual({ would_replay: 17, would_wait: 17, would_execute: 1, would_block: 15 });
  });
});
