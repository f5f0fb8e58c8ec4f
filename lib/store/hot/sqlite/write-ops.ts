import type { BudgetCharge, RunSpend } from "../../../core/budget";
import { POLICY_SQL } from "../shared/policy-statements";
import { BUDGET_SQL, SQL } from "../shared/statements";

/**
 * Every statement a SQLite write runs, by name: the writer thread gets the texts once and the
 * operations name them, so a write crosses the thread boundary as a name and its parameters.
 */
export const WRITE_SQL = {
  insertRecord: SQL.insertRecord,
  updateRecord: SQL.updateRecord,
  recordReplay: SQL.recordReplay,
  insertEvent: SQL.insertEvent,
  insertEventOnce: SQL.insertEventOnce,
  insertProject: SQL.insertProject,
  insertApiKey: SQL.insertApiKey,
  touchApiKey: SQL.touchApiKey,
  insertInstallSecret: SQL.insertInstallSecret,
  installSecret: SQL.installSecret,
  spend: BUDGET_SQL.spend,
  charge: BUDGET_SQL.charge,
  discover: POLICY_SQL.discover,
  layerVersion: POLICY_SQL.layerVersion,
  nextRevision: POLICY_SQL.nextRevision,
  upsertLayer: POLICY_SQL.upsertLayer,
  insertRevision: POLICY_SQL.insertRevision,
};
export type WriteSqlName = keyof typeof WRITE_SQL;

type Row = Record<string, unknown>;

/**
 * One write of the gate store as plain data (structured-cloneable): what runs inside its
 * transaction, with every parameter already laid out as the statements take them.
 */
export type WriteOp =
  /** A record change and its event; false when the insert met the key or the CAS missed. */
  | { kind: "record"; sql: "insertRecord" | "updateRecord"; record: unknown[]; event: unknown[] }
  /** The same, plus the budget charge (checked first when `enforce` is set). */
  | { kind: "charged"; sql: "insertRecord" | "updateRecord"; record: unknown[]; event: unknown[]; charge: unknown[]; enforce: { spend: unknown[]; charge: BudgetCharge } | null }
  /** A replay's counter and its event; the new count, or null when the record changed. */
  | { kind: "replay"; params: unknown[]; event: unknown[] }
  | { kind: "events"; sql: "insertEvent" | "insertEventOnce"; events: unknown[][] }
  /** One statement; its count of changed rows. */
  | { kind: "run"; sql: WriteSqlName; params: unknown[] }
  /** Stores the candidate unless the name has a value; the stored value. */
  | { kind: "secret"; insert: unknown[]; name: string }
  /** A policy layer CAS and its revision; `layer[3]` and `revision[3]` are the version, numbered here. */
  | { kind: "policy"; projectId: string; tool: string; expectedVersion: number; layer: unknown[]; revision: unknown[] };

/** What a charged write answers: the run's spend row when the budget refused it. */
export type ChargedOutcome = { written: true } | { written: false; refused: Row | null; lost: boolean };

export interface WriteRunner {
  run(sql: WriteSqlName, params: unknown[]): { changes: number };
  get(sql: WriteSqlName, params: unknown[]): Row | undefined;
}

/**
 * Runs one write inside the caller's transaction. It must use nothing outside its parameters:
 * the writer thread runs its source (`applyWriteOp.toString()`), with budgetExceeded's beside it.
 */
export function applyWriteOp(s: WriteRunner, op: WriteOp, budgetExceeded: (spent: RunSpend | null, charge: BudgetCharge) => string | null): unknown {
  switch (op.kind) {
    case "record":
      if (s.run(op.sql, op.record).changes === 0) return false;
      s.run("insertEvent", op.event);
      return true;
    case "charged": {
      if (op.enforce) {
        const row = s.get("spend", op.enforce.spend);
        const spent: RunSpend | null = row
          ? {
              calls: Number(row.calls),
              costMicros: Number(row.cost_micros),
              currency: String(row.currency),
              maxCalls: row.max_calls === null || row.max_calls === undefined ? null : Number(row.max_calls),
              maxCostMicros: row.max_cost_micros === null || row.max_cost_micros === undefined ? null : Number(row.max_cost_micros),
            }
          : null;
        if (budgetExceeded(spent, op.enforce.charge) !== null) return { written: false, refused: row ?? null, lost: false };
      }
      if (s.run(op.sql, op.record).changes === 0) return { written: false, refused: null, lost: true };
      s.run("insertEvent", op.event);
      s.run("charge", op.charge);
      return { written: true };
    }
    case "replay": {
      const row = s.get("recordReplay", op.params);
      if (!row) return null;
      s.run("insertEvent", op.event);
      return Number(row.replays);
    }
    case "events":
      for (const event of op.events) s.run(op.sql, event);
      return null;
    case "run":
      return s.run(op.sql, op.params).changes;
    case "secret":
      s.run("insertInstallSecret", op.insert);
      return String(s.get("installSecret", [op.name])!.value);
    case "policy": {
      const current = s.get("layerVersion", [op.projectId, op.tool]);
      if (Number(current?.version ?? 0) !== op.expectedVersion) return null;
      const version = Number(s.get("nextRevision", [op.projectId])!.next);
      const layer = op.layer.slice();
      const revision = op.revision.slice();
      layer[3] = version;
      revision[3] = version;
      s.run("upsertLayer", layer);
      s.run("insertRevision", revision);
      return version;
    }
  }
}
