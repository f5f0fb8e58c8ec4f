import type { PolicyRevisionRow, PolicyRow } from "../ports/policy-store";
import type { Db } from "./client";
import type { PolicyLayer, PolicyRevision } from "../generated/sqlite/client";
import { guardDb, numOrNull } from "./db-errors";

/**
 * The operator-side reads of policies and their history. The reads a begin makes (the layers in
 * force, loop history, tool discovery) stay prepared statements in lib/store/hot; so does the
 * versioned write, a compare-and-set that numbers the revision in the same transaction.
 */
export class PolicyRepository {
  constructor(private readonly db: Db) {}

  listPolicies(projectId: string): Promise<PolicyRow[]> {
    return guardDb(async () => (await this.db.policyLayer.findMany({ where: { projectId }, orderBy: { tool: "asc" } })).map(toPolicyRow));
  }

  findPolicy(projectId: string, tool: string): Promise<PolicyRow | null> {
    return guardDb(async () => {
      const row = await this.db.policyLayer.findUnique({ where: { projectId_tool: { projectId, tool } } });
      return row ? toPolicyRow(row) : null;
    });
  }

  listPolicyRevisions(projectId: string, tool: string, limit: number): Promise<PolicyRevisionRow[]> {
    return guardDb(async () =>
      (await this.db.policyRevision.findMany({ where: { projectId, tool }, orderBy: { version: "desc" }, take: limit })).map(toRevisionRow),
    );
  }

  findPolicyRevision(projectId: string, version: number): Promise<PolicyRevisionRow | null> {
    return guardDb(async () => {
      const row = await this.db.policyRevision.findUnique({ where: { projectId_version: { projectId, version } } });
      return row ? toRevisionRow(row) : null;
    });
  }
}

function toPolicyRow(row: PolicyLayer): PolicyRow {
  return {
    tool: row.tool,
    overrides: row.overrides,
    version: row.version,
    firstSeenAt: numOrNull(row.firstSeenAt),
    updatedAt: numOrNull(row.updatedAt),
    updatedBy: row.updatedBy,
  };
}

function toRevisionRow(row: PolicyRevision): PolicyRevisionRow {
  return { ...row, at: Number(row.at) };
}
