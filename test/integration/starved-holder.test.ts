import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { availableParallelism, tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_POLICY } from "../../lib/core/policy";
import { AdminClient, TEST_ADMIN_TOKEN } from "../helpers/admin-client";
import { TestClient } from "../helpers/client";
import { PROVIDERS, type TestDatabase, createTestDatabase } from "../helpers/databases";
import { type TestProject, createTestProject, eventsForCall, hasBegins } from "../helpers/fixtures";
import { expectDecision, sleep } from "../helpers/policy-fixtures";
import { type TestServer, startServer } from "../helpers/server";
import { waitFor } from "../helpers/storm-scenario";

const CHILD = path.join(import.meta.dirname, "starved-holder-child.ts");
/** The holder's main thread spins this long: twice its 2 s lease, with no heartbeat leaving. */
const BUSY_MS = 4_000;
/** Well past the lease plus the default grace (2 s + 5 s): this holder is overtaken while it spins. */
const OVERTAKEN_BUSY_MS = 12_000;
const GRACE_MS = DEFAULT_POLICY.leaseGraceSeconds * 1000;

/** One busy loop per core (two at most) for the length of a test: the machine is as busy as a loaded one. */
function startHogs(): () => void {
  const hogs = Array.from({ length: Math.min(2, availableParallelism()) }, () => spawn(process.execPath, ["-e", "for (;;) {}"], { stdio: "ignore" }));
  return () => {
    for (const hog of hogs) hog.kill("SIGKILL");
  };
}

/**
 * Issue #36 §1: a holder whose heartbeats are merely late (its process starved, its event loop
 * busy) kept beating, but the lease lapsed and the redelivered request ran the effect again. Now a
 * holder is dead only once it has been silent for the lease plus the policy's grace
 * (`leaseGraceSeconds`, 5 s by default, which these tests use); a late beat renews the lease; a
 * dead one is taken over within that bound; and a holder overtaken after all hears it at once.
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
    // The contenders below ask again and again in one run: the loop detector, which would block such a
    // run, is off here so that only the lease decides (this test is about liveness, not loops). The
    // grace is the default one.
    await new AdminClient(server.baseUrl, project.projectId).put("export_report", { loop: { enabled: false } }, "test: a starved holder keeps its key");
  });
  afterAll(async () => {
    for (const child of children) child.kill("SIGKILL");
    await server?.stop();
    await db?.drop();
  });

  function holder(runId: string, busyMs: number | null, awaitAbort = false) {
    const effectsFile = path.join(dir, `${runId}.effects`);
    const jobFile = path.join(dir, `${runId}.json`);
    writeFileSync(jobFile, JSON.stringify({ baseUrl: server.baseUrl, apiKey: project.apiKey, runId, effectsFile, busyMs, awaitAbort }));
    const child = spawn(process.execPath, ["--import", "tsx", CHILD, jobFile], { stdio: ["ignore", "pipe", "pipe"] });
    children.push(child);
    let output = "";
    child.stdout!.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.stderr!.on("data", (chunk: Buffer) => (output += chunk.toString()));
    const effects = () => (existsSync(effectsFile) ? readFileSync(effectsFile, "utf8").split("\n").filter(Boolean).length : 0);
    const key = () => /started (\S+)/.exec(output)?.[1];
    return { child, output: () => output, effects, key };
  }

  const contend = (runId: string) => client.begin({ runId, tool: "export_report", stepId: "export" });

  it("a holder whose main thread is busy for twice its lease, beside CPU hogs, keeps the key: every contender waits, then replays; one effect", async () => {
    const runId = `starved-${provider}`;
    const stopHogs = startHogs();
    try {
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
    } finally {
      stopHogs();
    }
  });

  it("a holder SIGKILLed mid-tool is taken over once silent for its lease plus the grace, not before; the ledger shows both attempts under one key", async () => {
    const runId = `killed-${provider}`;
    const held = holder(runId, null);
    await waitFor(async () => held.output().includes("started"), 60_000, "the holder to start its tool");
    const exited = new Promise((resolve) => held.child.once("exit", resolve));
    expect(held.child.exitCode ?? held.child.signalCode, `the holder ended before it was killed:\n${held.output()}`).toBeNull();
    held.child.kill("SIGKILL");
    await exited;
    expect(held.child.signalCode).toBe("SIGKILL");
    const waiting = expectDecision(await contend(runId), "in_progress");
    // The last lease the dead holder was granted (its last beat may land just after the kill).
    await sleep(300);
    const lease = Date.parse((await client.status(waiting.callId)).leaseExpiresAt!);
    // Within the grace it might only be late: still in_progress (asked only while clearly inside it).
    if (Date.now() < lease + GRACE_MS - 1_000) expectDecision(await contend(runId), "in_progress");
    // The stated bound: silent for leaseSeconds + leaseGraceSeconds, it is dead, and the next begin takes over.
    const dueIn = lease + GRACE_MS + 100 - Date.now();
    if (dueIn > 0) await sleep(dueIn);
    const taken = expectDecision(await contend(runId), "execute");
    expect(taken).toMatchObject({ callId: waiting.callId, key: held.key(), attempt: 2, recovered: true });
    await client.complete(taken.callId, { leaseToken: taken.leaseToken, outcome: "succeeded", result: { rows: 42 } });
    const begins = (await eventsForCall(db.url, project.projectId, taken.callId, { until: hasBegins("execute", 2) })).filter((e) => e.type === "begin" && e.decision === "execute");
    expect(begins.map((e) => [e.attempt, e.key])).toEqual([
      [1, held.key()],
      [2, held.key()],
    ]);
  });

  it("a holder overtaken after all (busy past its lease plus the grace) hears lease_lost at once: its tool's signal is aborted, both attempts are on the ledger, one key", async () => {
    const runId = `overtaken-${provider}`;
    const held = holder(runId, OVERTAKEN_BUSY_MS, true);
    await waitFor(async () => held.output().includes("started"), 60_000, "the holder to start its tool");
    let taken: Awaited<ReturnType<typeof contend>> | null = null;
    await waitFor(
      async () => {
        const answer = await contend(runId);
        if (answer.decision !== "in_progress") taken = answer;
        return taken !== null;
      },
      60_000,
      "the silent holder's call to be taken over",
    );
    const second = expectDecision(taken!, "execute");
    // The key given to the tool is the same for both attempts: a downstream that honours it dedupes.
    expect(second).toMatchObject({ key: held.key(), attempt: 2, recovered: true });
    // The holder's first beat after its spin is answered lease_lost, and the SDK aborts the tool.
    await waitFor(async () => held.output().includes("done"), 60_000, "the overtaken holder to end");
    expect(held.output()).toContain("aborted LeaseLostError");
    expect(held.output()).toContain("done lease_lost");
    await client.complete(second.callId, { leaseToken: second.leaseToken, outcome: "succeeded", result: { rows: 42 } });
    const events = await eventsForCall(db.url, project.projectId, second.callId, { until: (es) => es.some((e) => e.type === "lease_lost") && hasBegins("execute", 2)(es) });
    expect(events.filter((e) => e.type === "begin" && e.decision === "execute").map((e) => [e.attempt, e.key])).toEqual([
      [1, held.key()],
      [2, held.key()],
    ]);
    const lost = events.filter((e) => e.type === "lease_lost");
    expect(lost).toMatchObject([{ decision: "heartbeat" }]);
    expect(JSON.parse(lost[0]!.detail!)).toMatchObject({ lateAttempt: 1 });
  });
});
