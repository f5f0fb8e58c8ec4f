import { appendFileSync, mkdtempSync } from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { inject } from "vitest";
import { type TestDatabase, createTestDatabase } from "../helpers/databases";
import { createTestProject } from "../helpers/fixtures";
import { type TestServer, startServer } from "../helpers/server";
import { ToolBackend } from "./backend";
import { type ChaosEnv, FULL_FACTOR, type Scenario, runScenario } from "./harness";
import { type ScenarioRow, chaosTable } from "./report";
import { approvalTwice } from "./scenarios/approval-twice";
import { crashResume } from "./scenarios/crash-resume";
import { loop } from "./scenarios/loop";
import { networkBeforeExecution } from "./scenarios/network-before-execution";
import { parallelRace } from "./scenarios/parallel-race";
import { slowSuccess } from "./scenarios/slow-success";
import { subagentAndParent } from "./scenarios/subagent-and-parent";
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
  const rows: ScenarioRow[] = [];

  beforeAll(async () => {
    db = await createTestDatabase("sqlite");
    const project = await createTestProject(db.url, "chaos");
    server = await startServer(db.url);
    const tmpDir = mkdtempSync(path.join(inject("tmpRoot"), "chaos-"));
    const backend = new ToolBackend(path.join(tmpDir, "backend.db"));
    env = { baseUrl: server.baseUrl, apiKey: project.apiKey, backend, seed: SEED, tmpDir };
  });

  afterAll(async () => {
    const table = chaosTable(rows, { size: SIZE, seed: SEED });
    console.log(`\n${table}\n`);
    // Appended: the other families (multi-step) add their tables to the same report.
    if (process.env.IDEMGATE_CHAOS_REPORT) appendFileSync(process.env.IDEMGATE_CHAOS_REPORT, `${table}\n`);
    env?.backend.close();
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
});
