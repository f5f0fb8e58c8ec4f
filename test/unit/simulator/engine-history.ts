import { randomBytes } from "node:crypto";
import fc from "fast-check";
import { isCachedOutcome } from "../../../lib/core/generations";
import { DEFAULT_POLICY, type ToolPolicy } from "../../../lib/core/policy";
import type { CallRecord } from "../../../lib/core/record";
import { AppError } from "../../../lib/server/app-error";
import { GateService } from "../../../lib/server/gate/gate-service";
import { OperatorRecords } from "../../../lib/server/operators/operator-records";
import { SYSTEM_ACTOR } from "../../../lib/server/operators/operator-audit";
import type { PolicySource } from "../../../lib/server/policies/policy-source";
import { createProjectWithKey } from "../../../lib/server/operators/projects";
import type { BypassGate } from "../../../lib/server/resends/resend-bypass";
import { openStore } from "../../../lib/store/hot/open-gate-store";
import type { GateStore } from "../../../lib/store/ports/gate-store";
import { type Db, openDb } from "../../../lib/store/prisma/client";
import { PrismaOperatorStore } from "../../../lib/store/prisma/operator-store";
import { migratedSqliteFile } from "../../helpers/migrated-sqlite";

/**
 * Histories made by the real engine: a GateService over a real SQLite file with a clock the test
 * moves, driven by generated operations (begins, latches, completes, heartbeats, clock jumps,
 * evictions, resolves, resends). The ledger it leaves is what the policy simulator replays.
 */
export const TOOL = "create_ticket";
export const OTHER_TOOL = "lookup_order";
export const T0 = 1_800_000_000_000;

/** Resends as the gate answers them (resend-bypass.ts), minus the token bookkeeping the simulator never sees. */
const bypassGate: BypassGate = {
  async authorize({ policy, current, ask, now }) {
    if (!isCachedOutcome(current, policy, now)) return { kind: "plan" };
    if (policy.bypass === "never") throw new AppError("bypass_forbidden", "never");
    if (ask.token !== undefined) return { kind: "advance", requestId: `rr_${randomBytes(4).toString("hex")}` };
    if (policy.bypass === "allow") return { kind: "advance", requestId: null };
    return { kind: "approval_required", requestId: "rr_pending" };
  },
  claimed: async () => undefined,
};

export interface EngineHistory {
  store: GateStore;
  /** Prisma Client on the same file, for the repositories (policy history, operator reads). */
  db: Db;
  projectId: string;
  service: GateService;
  clock: { now: number };
  records: OperatorRecords;
  close(): Promise<void>;
}

/** `policy`: the tool's policy throughout, or a function read on every begin (a policy edited midway, with its revision). */
export async function engineHistory(policy: ToolPolicy | (() => { policy: ToolPolicy; version: number })): Promise<EngineHistory> {
  const file = await migratedSqliteFile("sim");
  const store = openStore({ databaseUrl: `file:${file}`, sqliteSynchronous: "normal" });
  const db = openDb({ databaseUrl: `file:${file}` });
  const project = await createProjectWithKey(store, "simulator");
  const clock = { now: T0 };
  const current = typeof policy === "function" ? policy : () => ({ policy, version: 1 });
  const policies: PolicySource = { forTool: async (_, tool) => (tool === TOOL ? { ...current(), known: true } : { policy: DEFAULT_POLICY, version: 1, known: true }) };
  const service = new GateService(store, policies, { clock: () => clock.now, bypass: bypassGate });
  const records = new OperatorRecords(new PrismaOperatorStore(db), store, policies, () => clock.now);
  return {
    store,
    db,
    projectId: project!.projectId,
    service,
    clock,
    records,
    close: async () => {
      await db.$disconnect();
      await store.close();
    },
  };
}

export type Op =
  | { op: "begin"; tool: "main" | "other"; run: number; step: number; args: number; scope: number | null; bypass: "token" | "ask" | null }
  | { op: "latch"; attempt: number; outcome: Outcome }
  | { op: "complete"; attempt: number; outcome: Outcome }
  | { op: "heartbeat"; attempt: number; extendSeconds: number | null }
  | { op: "again"; call: number; otherArgs: boolean; bypass: "token" | "ask" | null }
  | { op: "advance"; ms: number }
  | { op: "evict"; call: number }
  | { op: "resolve"; call: number; outcome: "succeeded" | "failed" };

type Outcome = "succeeded" | "failed" | "released";

const outcome = fc.constantFrom<Outcome>("succeeded", "succeeded", "failed", "released");

/** Small id spaces, so keys collide, runs repeat themselves and loops trip. */
export const opArb: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record({
      op: fc.constant("begin" as const),
      tool: fc.constantFrom("main" as const, "main" as const, "other" as const),
      run: fc.nat(2),
      step: fc.nat(2),
      args: fc.nat(2),
      scope: fc.option(fc.nat(1), { nil: null }),
      bypass: fc.constantFrom(null, null, null, null, "token" as const, "ask" as const),
    }),
  },
  { weight: 2, arbitrary: fc.record({ op: fc.constant("latch" as const), attempt: fc.nat(4), outcome }) },
  { weight: 3, arbitrary: fc.record({ op: fc.constant("complete" as const), attempt: fc.nat(4), outcome }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant("heartbeat" as const), attempt: fc.nat(4), extendSeconds: fc.option(fc.constantFrom(2, 20), { nil: null }) }) },
  {
    weight: 3,
    arbitrary: fc.record({
      op: fc.constant("again" as const),
      call: fc.nat(6),
      otherArgs: fc.boolean(),
      bypass: fc.constantFrom(null, "token" as const, "ask" as const),
    }),
  },
  { weight: 2, arbitrary: fc.record({ op: fc.constant("advance" as const), ms: fc.constantFrom(1, 700, 3_000, 12_000, 70_000) }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant("evict" as const), call: fc.nat(6) }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant("resolve" as const), call: fc.nat(6), outcome: fc.constantFrom("succeeded" as const, "failed" as const) }) },
);

/** Policies the generated histories are decided under (short TTL and lease, so both expire). */
export const policyArb: fc.Arbitrary<ToolPolicy> = fc
  .record({
    effect: fc.constantFrom("write" as const, "async" as const, "async" as const, "read" as const),
    keyStrategy: fc.constantFrom("step" as const, "step" as const, "args" as const, "scope" as const, "toolCallId" as const),
    onDuplicate: fc.constantFrom("replay" as const, "replay" as const, "refuse" as const, "execute" as const),
    onArgsMismatch: fc.constantFrom("replay" as const, "reject" as const),
    bypass: fc.constantFrom("approval" as const, "allow" as const, "never" as const),
    cacheFailures: fc.boolean(),
    loop: fc.record({ enabled: fc.boolean(), repeats: fc.constantFrom(2, 3), maxCycleLength: fc.constantFrom(1, 2), action: fc.constantFrom("block" as const, "warn" as const) }),
  })
  .map((over) => ({ ...DEFAULT_POLICY, ttlSeconds: 60, leaseSeconds: 5, ...over }));

interface Attempt {
  callId: string;
  leaseToken: string;
}

/** The identity of a recorded call, to begin it again. */
const sameCall = (record: CallRecord) => ({
  tool: record.tool,
  runId: record.runId,
  stepId: record.stepId,
  scope: record.scope,
  toolCallId: record.toolCallId,
  agentId: null,
});

const settle = async () => {
  for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
};

/** Runs the operations; engine refusals (400, 403, lease_lost, invalid_state) are part of a history. */
export async function play(history: EngineHistory, ops: readonly Op[]): Promise<void> {
  const running: Attempt[] = [];
  const calls: string[] = [];
  const tolerate = async (work: () => Promise<unknown>) => {
    try {
      return await work();
    } catch (error) {
      if (!(error instanceof AppError)) throw error;
      return null;
    }
  };
  const track = (decision: Awaited<ReturnType<GateService["begin"]>> | unknown) => {
    const d = decision as Awaited<ReturnType<GateService["begin"]>> | null;
    if (d && (d.decision === "execute" || d.decision === "verify")) {
      running.push({ callId: d.callId, leaseToken: d.leaseToken });
      calls.push(d.callId);
    }
  };
  const begin = async (op: Extract<Op, { op: "begin" }>) => {
    const decision = await tolerate(() =>
      history.service.begin(history.projectId, {
        tool: op.tool === "main" ? TOOL : OTHER_TOOL,
        runId: `run-${op.run}`,
        stepId: op.step === 0 ? null : `step-${op.step}`,
        scope: op.scope === null ? null : `order:${op.scope}`,
        toolCallId: `tc-${op.run}-${op.step}-${op.args}`,
        agentId: null,
        // requestId is ignored by the default ignoreFields: a paraphrase that fingerprints the same.
        args: { order: op.args, requestId: randomBytes(3).toString("hex") },
        bypass: op.bypass === null ? undefined : { token: op.bypass === "token" ? "t" : undefined, reason: "again", actor: SYSTEM_ACTOR },
      }),
    );
    track(decision);
  };
  const finish = (attempt: Attempt, outcome: Outcome) =>
    tolerate(() =>
      history.service.complete(history.projectId, attempt.callId, attempt.leaseToken, outcome === "succeeded" ? { outcome } : { outcome: "failed", error: { message: "boom", retryable: outcome === "released" } }),
    );
  const pick = <T>(list: T[], i: number) => (list.length === 0 ? undefined : list[i % list.length]);

  for (const op of ops) {
    switch (op.op) {
      case "begin":
        await begin(op);
        break;
      case "again": {
        // The model decides a known call again: the same step, maybe paraphrased, maybe as a resend.
        const callId = pick(calls, op.call);
        const record = callId && (await history.store.findRecordById(history.projectId, callId));
        if (!record) break;
        const args = (record.args === null ? { order: 0 } : JSON.parse(record.args)) as { order: number };
        const decision = await tolerate(() =>
          history.service.begin(history.projectId, {
            ...sameCall(record),
            args: op.otherArgs ? { ...args, order: args.order + 10 } : args,
            bypass: op.bypass === null ? undefined : { token: op.bypass === "token" ? "t" : undefined, reason: "again", actor: SYSTEM_ACTOR },
          }),
        );
        track(decision);
        break;
      }
      case "latch": {
        // A concurrent duplicate with waitMs while the attempt runs: it waits for the outcome.
        const attempt = pick(running, op.attempt);
        if (!attempt) break;
        const record = await history.store.findRecordById(history.projectId, attempt.callId);
        if (!record) break;
        const waiting = tolerate(() =>
          history.service.begin(history.projectId, { ...sameCall(record), args: record.args === null ? undefined : JSON.parse(record.args), waitMs: 5_000 }),
        ).then(track);
        let resolved = false;
        void waiting.finally(() => (resolved = true));
        await settle();
        running.splice(running.indexOf(attempt), 1);
        await finish(attempt, op.outcome);
        // It may wait on another attempt (a newer generation) that nobody completes: then its
        // deadline passes on the test's clock, and it answers in_progress.
        for (let i = 0; i < 100 && !resolved; i++) await new Promise((resolve) => setTimeout(resolve, 10));
        if (!resolved) history.clock.now += 5_001;
        await waiting;
        break;
      }
      case "complete": {
        const attempt = pick(running, op.attempt);
        if (!attempt) break;
        running.splice(running.indexOf(attempt), 1);
        await finish(attempt, op.outcome);
        break;
      }
      case "heartbeat": {
        const attempt = pick(running, op.attempt);
        if (attempt) await tolerate(() => history.service.heartbeat(history.projectId, attempt.callId, attempt.leaseToken, op.extendSeconds ?? undefined));
        break;
      }
      case "advance":
        history.clock.now += op.ms;
        break;
      case "evict": {
        const callId = pick(calls, op.call);
        if (callId) await tolerate(() => history.records.evict(history.projectId, callId, "test", SYSTEM_ACTOR));
        break;
      }
      case "resolve": {
        const callId = pick(calls, op.call);
        if (callId) await tolerate(() => history.records.resolve(history.projectId, callId, { outcome: op.outcome, note: "found downstream" }, SYSTEM_ACTOR));
        break;
      }
    }
  }
}
