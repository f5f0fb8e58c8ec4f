import type { KeyStrategy } from "../../core/policy";
import type { CallRecord, RecordState } from "../../core/record";
import type { GateEvent } from "../ports/gate-store";
import type { CallRecord as StoredRecord } from "../generated/sqlite/client";

/**
 * Domain rows ↔ Prisma's rows for the tables the hot path also writes. Epoch-ms columns are BigInt
 * in the schema (Prisma takes numbers for them and answers bigint); flags are 0/1 integers.
 */
export function toStoredEvent(event: GateEvent) {
  return { ...event, argsMismatch: event.argsMismatch ? 1 : 0, loopStep: event.loopStep ? 1 : 0 };
}

/** Every column but the identity (project, key, id), for a compare-and-set update of the record. */
export function recordChanges(record: CallRecord) {
  const { id: _id, projectId: _projectId, key: _key, ...changes } = record;
  return changes;
}

export function fromStoredRecord(row: StoredRecord): CallRecord {
  return {
    ...row,
    strategy: row.strategy as KeyStrategy,
    state: row.state as RecordState,
    leaseExpiresAt: row.leaseExpiresAt === null ? null : Number(row.leaseExpiresAt),
    firstSeenAt: Number(row.firstSeenAt),
    completedAt: row.completedAt === null ? null : Number(row.completedAt),
    expiresAt: Number(row.expiresAt),
    updatedAt: Number(row.updatedAt),
  };
}
