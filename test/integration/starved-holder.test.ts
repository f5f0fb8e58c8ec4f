import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AdminClient, TEST_ADMIN_TOKEN } from "../helpers/admin-client";
import { TestClient } from "../helpers/client";
import { PROVIDERS, type TestDatabase, createTestDatabase } from "../helpers/databases";
import { type TestProject, createTestProject } from "../helpers/fixtures";
import { type TestServer, startServer } from "../helpers/server";
import { waitFor } from "../helpers/storm-scenario";

const CHILD = path.join(import.meta.dirname, "starved-holder-child.ts");
/** The holder's main thread spins this long: twice its 2 s lease, with no heartbeat leaving. */
const BUSY_MS = 4_000;

/**
 * Issue #36 §1: a holder whose heartbeats are merely late (its process starved, its event loop
 * busy) kept beating, but the lease lapsed and the redelivered request ran the effect again. Now a
 * holder is dead only once it has been silent for the lease plus the policy's grace
 * (`leaseGraceSeconds`, set to 5 s here); a late beat renews the lease; a dead one is still taken over.
 */
describe.each(PROVIDERS)("%s: a starved holder keeps its lease; a dead one is taken over", (provider) => {
  let db: TestDatabase;
  let server: TestServer;
  let project: TestProject;
  let client: TestClient;
  const dir = mkdtempSync(path.join(tmpdir(), "idemgate-starved-"));
  const children: ChildProcess[] = [];

  beforeAll(async () => {
    db = await createTestDatabase(provider);
    project = await createTestProject(db.url);
    server = await startServer(db.url, { IDEMGATE_ADMIN_TOKEN: TEST_ADMIN_TOKEN });
    client = new TestClient(server.baseUrl, project.apiKey);
    // The tool's liveness grace: a holder silent for its lease plus 5 s is dead, not before.
    // The contenders below ask again and again in one run: the loop detector, which would block such a
    // run, is off here so that only the lease decides (this test is about liveness, not loops).
    await new AdminClient(server.baseUrl, project.projectId).put("export_report", { leaseGraceSeconds: 5, loop: { enabled: false } }, "test: a starved holder keeps its key");
  });
  afterAll(async () => {
    for (const child of children) child.kill("SIGKILL");
    await server?.stop();
    await db?.drop();
  });

  function holder(runId: string, busyMs: number | null) {
    const effectsFile = path.join(dir, `${runId}.effects`);
    const jobFile = path.join(dir, `${runId}.json`);
    writeFileSync(jobFile, JSON.stringify({ baseUrl: server.baseUrl, apiKey: project.apiKey, runId, effectsFile, busyMs }));
    const child = spawn(process.execPath, ["--import", "tsx", CHILD, jobFile], { stdio: ["ignore", "pipe", "pipe"] });
    children.push(child);
    let output = "";
    child.stdout!.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.stderr!.on("data", (chunk: Buffer) => (output += chunk.toString()));
    const effects = () => (existsSync(effectsFile) ? readFileSync(effectsFile, "utf8").split("\n").filter(Boolean).length : 0);
    return { child, output: () => output, effects };
  }

  const contend = (runId: string) => client.begin({ runId, tool: "export_report", stepId: "export" });

  it("a holder whose main thread is busy for twice its lease keeps the key: every contender waits, then replays; one effect", async () => {
    const runId = `starved-${provider}`;
    const held = holder(runId, BUSY_MS);
    await waitFor(async () => held.output().includes("started"), 60_000, "the holder to start its tool");
    // Contenders keep asking while the holder spins and until it has finished.
    const decisions: string[] = [];
    await waitFor(
      async () => {
        const answer = await contend(runId);
        decisions.push(answer.decision);
        return held.output().includes("done") && answer.decision !== "in_progress";
      },
      120_000,
      "the holder to finish",
    );
    expect(decisions).not.toContain("execute");
    expect(decisions).not.toContain("verify");
    expect(decisions.at(-1)).toBe("replay");
    expect(held.output()).toContain("done executed");
    expect(held.effects()).toBe(1);
  });

  it("a holder SIGKILLed mid-tool is taken over once silent for its lease plus the grace", async () => {
    const runId = `killed-${provider}`;
    const held = holder(runId, null);
    await waitFor(async () => held.output().includes("started"), 60_000, "the holder to start its tool");
    held.child.kill("SIGKILL");
    const killedAt = Date.now();
    let taken: { decision: string; recovered?: boolean } | null = null;
    await waitFor(
      async () => {
        const answer = await contend(runId);
        if (answer.decision !== "in_progress") taken = answer as { decision: string; recovered?: boolean };
        return taken !== null;
      },
      60_000,
      "the dead holder's call to be taken over",
    );
    console.log(`[starved-holder] ${provider}: a killed holder was taken over ${Date.now() - killedAt} ms after the kill (lease 2 s + grace 5 s)`);
    expect(taken).toMatchObject({ decision: "execute", recovered: true });
  });
});
