import Database from "better-sqlite3";
import { mkdirSync } from "node:fs";
import path from "node:path";
import type { CallRecord } from "../core/record";
import { eventValues, recordValues, rowToApiKey, rowToEvent, rowToRecord } from "./columns";
import type { CallSignature } from "../core/loop-detector";
import {
  POLICY_SQL,
  revisionValues,
  rowToPolicy,
  rowToRevision,
  rowToSampledBegin,
  rowToSignature,
  rowToTraffic,
} from "./policy-statements";
import type { PolicyRevisionRow, PolicyRow, PolicyWrite, SampledBegin, ToolTrafficRow } from "./policy-types";
import { SQL, toSqliteParams } from "./statements";
import { type ApiKeyRow, type GateEvent, type GateStore, type ProjectRow, StoreUnavailableError } from "./types";

export type SqliteSynchronous = "full" | "normal";

export interface SqliteStoreOptions {
  /** FULL survives power loss; NORMAL (in WAL) survives a process crash only. */
  synchronous?: SqliteSynchronous;
  busyTimeoutMs?: number;
}

/** SQLite errors that say "the store cannot serve now", not "this request is wrong". */
const UNAVAILABLE = /^SQLITE_(BUSY|LOCKED|IOERR|FULL|CANTOPEN|READONLY|PROTOCOL|NOMEM)/;

type Row = Record<string, unknown>;

function numbered(values: unknown[]): Record<number, unknown> {
  const bound: Record<number, unknown> = {};
  for (let i = 0; i < values.length; i++) bound[i + 1] = values[i];
  return bound;
}

/**
 * The embedded store: one better-sqlite3 connection per process with cached prepared statements.
 * Calls are synchronous underneath, so each method is atomic within the process; across processes
 * SQLite's write lock (BEGIN IMMEDIATE) and the unique index decide.
 */
export class SqliteGateStore implements GateStore {
  readonly provider = "sqlite" as const;
  private readonly db: Database.Database;
  private readonly statements = new Map<string, Database.Statement>();

  constructor(file: string, options: SqliteStoreOptions = {}) {
    mkdirSync(path.dirname(file), { recursive: true });
    this.db = new Database(file, { timeout: options.busyTimeoutMs ?? 5_000 });
    this.db.pragma("journal_mode = WAL");
    this.db.pragma(`synchronous = ${(options.synchronous ?? "full").toUpperCase()}`);
    this.db.pragma("foreign_keys = ON");
  }

  private stmt(sql: string): Database.Statement {
    let statement = this.statements.get(sql);
    if (!statement) {
      statement = this.db.prepare(toSqliteParams(sql));
      this.statements.set(sql, statement);
    }
    return statement;
  }

  /** Numbered parameters bind by name in better-sqlite3: `?1` takes `{ 1: … }`. */
  private run(sql: string, values: unknown[]): Database.RunResult {
    return this.stmt(sql).run(numbered(values));
  }

  private get(sql: string, values: unknown[]): Row | undefined {
    return this.stmt(sql).get(numbered(values)) as Row | undefined;
  }

  private all(sql: string, values: unknown[]): Row[] {
    return this.stmt(sql).all(numbered(values)) as Row[];
  }

  private guard<T>(work: () => T): Promise<T> {
    try {
      return Promise.resolve(work());
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      if (typeof code === "string" && UNAVAILABLE.test(code)) return Promise.reject(new StoreUnavailableError(error));
      return Promise.reject(error);
    }
  }

  private immediate<T>(work: () => T): Promise<T> {
    return this.guard(() => this.db.transaction(work).immediate());
  }

  findRecordByKey(projectId: string, key: string): Promise<CallRecord | null> {
    return this.guard(() => {
      const row = this.get(SQL.recordByKey, [projectId, key]);
      return row ? rowToRecord(row) : null;
    });
  }

  findRecordById(projectId: string, id: string): Promise<CallRecord | null> {
    return this.guard(() => {
      const row = this.get(SQL.recordById, [projectId, id]);
      return row ? rowToRecord(row) : null;
    });
  }

  insertRecord(record: CallRecord, event: GateEvent): Promise<boolean> {
    return this.immediate(() => {
      if (this.run(SQL.insertRecord, recordValues(record)).changes === 0) return false;
      this.run(SQL.insertEvent, eventValues(event));
      return true;
    });
  }

  updateRecord(record: CallRecord, expectedVersion: number, event: GateEvent): Promise<boolean> {
    return this.immediate(() => {
      if (this.run(SQL.updateRecord, [...recordValues(record), expectedVersion]).changes === 0) return false;
      this.run(SQL.insertEvent, eventValues(event));
      return true;
    });
  }

  recordReplay(record: CallRecord, expectedVersion: number, event: GateEvent): Promise<number | null> {
    return this.immediate(() => {
      const row = this.get(SQL.recordReplay, [record.projectId, record.key, expectedVersion]);
      if (!row) return null;
      this.run(SQL.insertEvent, eventValues(event));
      return Number(row.replays);
    });
  }

  appendEvent(event: GateEvent): Promise<void> {
    return this.guard(() => {
      this.run(SQL.insertEvent, eventValues(event));
    });
  }

  listEventsForCall(projectId: string, callId: string): Promise<GateEvent[]> {
    return this.guard(() => this.all(SQL.eventsForCall, [projectId, callId]).map(rowToEvent));
  }

  createProject(project: ProjectRow): Promise<boolean> {
    return this.guard(() => this.run(SQL.insertProject, [project.id, project.name, project.createdAt]).changes === 1);
  }

  createApiKey(key: ApiKeyRow): Promise<void> {
    return this.guard(() => {
      this.run(SQL.insertApiKey, [key.id, key.projectId, key.name, key.prefix, key.hash, key.createdAt]);
    });
  }

  findApiKeyByHash(hash: string): Promise<ApiKeyRow | null> {
    return this.guard(() => {
      const row = this.get(SQL.apiKeyByHash, [hash]);
      return row ? rowToApiKey(row) : null;
    });
  }

  touchApiKey(id: string, at: number): Promise<void> {
    return this.guard(() => {
      this.run(SQL.touchApiKey, [id, at]);
    });
  }

  findPolicyLayers(projectId: string, tool: string): Promise<PolicyRow[]> {
    return this.guard(() => this.all(POLICY_SQL.layers, [projectId, tool]).map(rowToPolicy));
  }

  discoverTool(projectId: string, tool: string, at: number): Promise<void> {
    return this.guard(() => {
      this.run(POLICY_SQL.discover, [projectId, tool, at]);
    });
  }

  loopHistory(projectId: string, runId: string, limit: number): Promise<CallSignature[]> {
    return this.guard(() => this.all(POLICY_SQL.loopHistory, [projectId, runId, limit]).map(rowToSignature));
  }

  projectExists(projectId: string): Promise<boolean> {
    return this.guard(() => this.get(POLICY_SQL.projectExists, [projectId]) !== undefined);
  }

  listPolicies(projectId: string): Promise<PolicyRow[]> {
    return this.guard(() => this.all(POLICY_SQL.list, [projectId]).map(rowToPolicy));
  }

  findPolicy(projectId: string, tool: string): Promise<PolicyRow | null> {
    return this.guard(() => {
      const row = this.get(POLICY_SQL.find, [projectId, tool]);
      return row ? rowToPolicy(row) : null;
    });
  }

  /** Check, number and write inside one immediate transaction: SQLite's write lock serialises writers. */
  writePolicy(write: PolicyWrite): Promise<number | null> {
    return this.immediate(() => {
      const current = this.get(POLICY_SQL.layerVersion, [write.projectId, write.tool]);
      if (Number(current?.version ?? 0) !== write.expectedVersion) return null;
      const version = Number(this.get(POLICY_SQL.nextRevision, [write.projectId])!.next);
      this.run(POLICY_SQL.upsertLayer, [write.projectId, write.tool, write.overrides, version, write.at, write.author]);
      this.run(POLICY_SQL.insertRevision, revisionValues(write, version));
      return version;
    });
  }

  listPolicyRevisions(projectId: string, tool: string, limit: number): Promise<PolicyRevisionRow[]> {
    return this.guard(() => this.all(POLICY_SQL.revisions, [projectId, tool, limit]).map(rowToRevision));
  }

  findPolicyRevision(projectId: string, version: number): Promise<PolicyRevisionRow | null> {
    return this.guard(() => {
      const row = this.get(POLICY_SQL.revision, [projectId, version]);
      return row ? rowToRevision(row) : null;
    });
  }

  toolTraffic(projectId: string, since: number): Promise<ToolTrafficRow[]> {
    return this.guard(() => this.all(POLICY_SQL.traffic, [projectId, since]).map(rowToTraffic));
  }

  sampleBegins(projectId: string, tool: string, limit: number): Promise<SampledBegin[]> {
    return this.guard(() => this.all(POLICY_SQL.sample, [projectId, tool, limit]).map(rowToSampledBegin));
  }

  async close(): Promise<void> {
    this.db.close();
  }
}
