import { appendFileSync, mkdtempSync } from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { inject } from "vitest";
import { type TestDatabase, createTestDatabase } from "../helpers/databases";
import { createTestProject } from "../helpers/fixtures";
import { AdminClient, TEST_ADMIN_TOKEN } from "../helpers/admin-client";
import { OPERATOR_ENV, OperatorClient, ROOT, createOperator } from "../helpers/operator-client";
import { OrderBackend } from "../helpers/order-backend";
import { type TestServer, startServer } from "../helpers/server";
import { ShadowResponseSchema } from "../../lib/contract/stats";
import { ToolBackend } from "./backend";
import { type ChaosEnv, FULL_FACTOR, type Scenario, type ScenarioStats, runScenario } from "./harness";
import { type ScenarioRow, chaosTable } from "./report";
import { approvalTwice } from "./scenarios/approval-twice";
import { crashResume } from "./scenarios/crash-resume";
import { loop } from "./scenarios/loop";
import { networkBeforeExecution } from "./scenarios/network-before-execution";
import { parallelRace } from "./scenarios/parallel-race";
import { slowSuccess } from "./scenarios/slow-success";
import { subagentAndParent } from "./scenarios/subagent-and-parent";
import { type MultiStepEnv, type MultiStepRow, PREVIEW_TOOL, lostAccepted, multiStepTable, previewApprove, sagaTwoRunners } from "./scenarios/multi-step";
import { previewTimedOutThenApproved, undoReplayedThenRetried } from "./scenarios/multi-step-way-out";
import { timeoutAfterExecution } from "./scenarios/timeout-after-execution";

// npm test runs the small size; `npm run chaos` sets IDEMGATE_CHAOS_SIZE=full and a report file.
const SIZE = process.env.IDEMGATE_CHAOS_SIZE === "full" ? "full" : "small";
const SEED = Number(process.env.IDEMGATE_CHAOS_SEED ?? 20261122);
const SCENARIOS: Scenario[] = [
  timeoutAfterExecution,
  networkBeforeExecution,
  parallelRace,
  crashResume,
  subagentAndParent,
  approvalTwice,
  slowSuccess,
  loop,
];

/** Completes the gate refused as lease_lost: each is a possible duplicate it flags to operators. */
function leaseLostFlags(databaseUrl: string, scenario: string): number {
  const db = new Database(databaseUrl.slice("file:".length), { readonly: true });
  try {
    const row = db.prepare(`SELECT count(*) AS n FROM events WHERE type = 'lease_lost' AND run_id LIKE ?`).get(`run_${scenario}-gate-%`);
    return (row as { n: number }).n;
  } finally {
    db.close();
  }
}

describe(`chaos (${SIZE}, seed ${SEED}): exactly one side effect per request through the gate`, () => {
  let db: TestDatabase;
  let server: TestServer;
  let env: ChaosEnv;
  /** The same server, another project whose every tool is in shadow mode. */
  let shadowEnv: ChaosEnv & { projectId: string };
  let shadowRow: { shadow: ScenarioStats; wouldPrevent: number; enforcingPrevented: number } | null = null;
  let multiStep: MultiStepEnv;
  const rows: ScenarioRow[] = [];
  const multiStepRows: MultiStepRow[] = [];

  beforeAll(async () => {
    db = await createTestDatabase("sqlite");
    const project = await createTestProject(db.url, "chaos");
    // One server for both families; the multi-step one needs an operator (previews) and a policy.
    server = await startServer(db.url, { ...OPERATOR_ENV, IDEMGATE_ADMIN_TOKEN: TEST_ADMIN_TOKEN });
    const tmpDir = mkdtempSync(path.join(inject("tmpRoot"), "chaos-"));
    const backend = new ToolBackend(path.join(tmpDir, "backend.db"));
    env = { baseUrl: server.baseUrl, apiKey: project.apiKey, backend, seed: SEED, tmpDir };
    const shadowProject = await createTestProject(db.url, "chaos-shadow");
    // Every tool in shadow mode through the project default. The loop detector is off there: a race's
    // third identical copy may or may not read as a loop depending on timing (would_block, which is
    // not a duplicate count), while the enforcing run counts a blocked copy as prevented either way.
    await new AdminClient(server.baseUrl, shadowProject.projectId).put("*", { mode: "shadow", loop: { enabled: false } }, "chaos: every tool in shadow mode");
    shadowEnv = { ...env, apiKey: shadowProject.apiKey, projectId: shadowProject.projectId };
    await new AdminClient(server.baseUrl, project.projectId).put(PREVIEW_TOOL, { preview: "approve" }, "chaos: a human approves deletions");
    const operator = await createOperator(await OperatorClient.signIn(server.baseUrl, ROOT.email, ROOT.password), project.projectId, "operator");
    const orders = new OrderBackend();
    await orders.start();
    multiStep = { baseUrl: server.baseUrl, apiKey: project.apiKey, projectId: project.projectId, operator, backend: orders, size: SIZE === "full" ? 20 : 4 };
  });

  afterAll(async () => {
    // One report, both families' tables, read by scripts/chaos.mjs.
    const shadowLine = shadowRow
      ? `\nShadow mode (${shadowRow.shadow.id}, every tool in shadow): ${shadowRow.shadow.effects} side effects (${shadowRow.shadow.duplicates} duplicates) as without the gate; the gate would have prevented ${shadowRow.wouldPrevent} duplicate executions, the enforcing run prevented ${shadowRow.enforcingPrevented}.\n`
      : "";
    const table = `${chaosTable(rows, { size: SIZE, seed: SEED })}\n${shadowLine}${multiStepRows.length ? multiStepTable(multiStepRows) : ""}`;
    console.log(`\n${table}\n`);
    if (process.env.IDEMGATE_CHAOS_REPORT) appendFileSync(process.env.IDEMGATE_CHAOS_REPORT, `${table}\n`);
    env?.backend.close();
    await multiStep?.backend.stop();
    await server?.stop();
    await db?.drop();
  });

  it.each(SCENARIOS.map((s) => [s.id, s] as const))("%s", async (_, scenario) => {
    const requests = SIZE === "full" ? scenario.small * FULL_FACTOR : scenario.small;
    const gated = await runScenario(scenario, env, "gate", requests);
    const baseline = await runScenario(scenario, env, "baseline", requests);
    rows.push({ gated, baseline });

    expect({ missing: gated.missing, duplicates: gated.duplicates, effects: gated.effects }, JSON.stringify(gated.statuses)).toEqual({
      missing: 0,
      duplicates: 0,
      effects: requests,
    });
    expect(gated.toolCalls).toBeGreaterThanOrEqual(requests);
    expect(leaseLostFlags(db.url, scenario.id)).toBe(0);
    // The faults must bite: without the gate the same agent does duplicate side effects.
    if (scenario.baselineDuplicates) expect(baseline.duplicates).toBeGreaterThan(0);
    else expect(baseline.missing).toBe(0);
  });

  // #22: shadow mode changes nothing the agent does, and counts exactly what enforcing prevents.
  it("race in shadow mode: the side effects of no gate, and 'would have prevented' equals what the enforcing run prevented", async () => {
    const enforcing = rows.find((row) => row.gated.id === parallelRace.id);
    expect(enforcing, "the race family ran first").toBeDefined();
    const { gated, baseline } = enforcing!;
    const shadow = await runScenario(parallelRace, shadowEnv, "shadow", gated.requests);
    // The agent saw `execute` every time: it ran every call, exactly as without the gate, order by order.
    expect(shadow.gatePrevented).toBe(0);
    expect({ toolCalls: shadow.toolCalls, effects: shadow.effects, duplicates: shadow.duplicates, missing: shadow.missing }).toEqual({
      toolCalls: baseline.toolCalls,
      effects: baseline.effects,
      duplicates: baseline.duplicates,
      missing: baseline.missing,
    });
    const shadowed = env.backend.effectsByOrder(parallelRace.id, "shadow");
    const unguarded = env.backend.effectsByOrder(parallelRace.id, "baseline");
    for (let i = 0; i < gated.requests; i++) {
      expect(shadowed.get(`${parallelRace.id}-shadow-${i}`) ?? 0, `order ${i}`).toBe(unguarded.get(`${parallelRace.id}-baseline-${i}`) ?? 0);
    }
    // The enforcing run prevented every call beyond one per request (the gate's answers plus keys the API saw again).
    const enforcingPrevented = gated.toolCalls - gated.effects;
    expect(enforcingPrevented).toBe(gated.gatePrevented + gated.keyDedups);
    // The product's number, as the overview and the tools page read it.
    const res = await fetch(`${server.baseUrl}/api/v1/admin/projects/${encodeURIComponent(shadowEnv.projectId)}/stats/shadow`, {
      headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}` },
    });
    const wouldPrevent = ShadowResponseSchema.parse(await res.json()).tools.find((t) => t.tool === "send_email")?.wouldPrevent ?? 0;
    shadowRow = { shadow, wouldPrevent, enforcingPrevented };
    expect(wouldPrevent).toBe(enforcingPrevented);
    expect(wouldPrevent).toBe(baseline.duplicates);
  });

  // #20: sagas, previews, async operations — each asserts its own gate-side invariants, then reports.
  it.each([
    ["saga-two-runners", sagaTwoRunners],
    ["preview-approve", previewApprove],
    ["async-lost-accepted", lostAccepted],
    ["saga-undo-replayed-then-retried", undoReplayedThenRetried],
    ["preview-timed-out-then-approved", previewTimedOutThenApproved],
  ] as const)("multi-step %s", async (_, scenario) => {
    const row = await scenario(multiStep);
    multiStepRows.push(row);
    expect(row.gate.unwanted).toBe(0);
    expect(row.baseline.unwanted).toBeGreaterThan(0);
  });
});
