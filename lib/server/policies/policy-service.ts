import { z } from "zod";
import { ToolPolicySchema } from "../../contract/policy";
import { PROJECT_DEFAULT_TOOL, type PolicyOverrides, type ToolPolicy } from "../../core/policy";
import { type PolicyChange, type PolicyOrigin, diffOverrides, mergePolicy, resolvePolicy } from "../../core/resolve-policy";
import type { PolicyHistory, PolicyRevisionRow, PolicyRow } from "../../store/ports/policy-store";
import type { GateStore } from "../../store/ports/gate-store";
import { AppError } from "../app-error";
import { newId } from "../ids";
import { InstallFingerprinter } from "../gate/install-fingerprinter";
import { type Simulation, simulateLedger } from "./policy-simulator";
import { parseLayer } from "./policy-source";

export interface EffectiveToolPolicy {
  tool: string;
  version: number;
  ownVersion: number;
  policy: ToolPolicy;
  overrides: PolicyOverrides | null;
  sources: Record<string, PolicyOrigin>;
}

export interface ToolEntry {
  tool: string;
  hasPolicy: boolean;
  ownVersion: number;
  overrides: PolicyOverrides | null;
  firstSeenAt: number | null;
  updatedAt: number | null;
  updatedBy: string | null;
  traffic: { calls: number; executions: number; replays: number; dedupHits: number; wouldPrevent: number };
}

export interface Revision {
  version: number;
  tool: string;
  author: string;
  reason: string;
  at: number;
  before: PolicyOverrides | null;
  after: PolicyOverrides | null;
  changes: PolicyChange[];
  restoredFrom: number | null;
}

export interface LayerChange {
  reason: string;
  author?: string;
  expectedVersion?: number;
}

export const TRAFFIC_WINDOW_MS = 24 * 3_600_000;
const HISTORY_LIMIT = 500;
const MAX_WRITE_RACES = 8;

/**
 * Operators' side of policies: list, explain, change, audit, restore. Every accepted change is a
 * compare-and-set on the layer plus a revision, in one transaction; nothing here is cached, and
 * the engine reads the layers afresh on each begin.
 */
export class PolicyService {
  /** The install's fingerprint key: the simulator derives fingerprints again and compares them with recorded ones. */
  private readonly fingerprints: InstallFingerprinter;

  constructor(
    private readonly store: GateStore,
    private readonly layers: PolicyHistory,
    private readonly clock: () => number = Date.now,
  ) {
    this.fingerprints = new InstallFingerprinter(store, clock);
  }

  async list(projectId: string): Promise<{ trafficSince: number; tools: ToolEntry[] }> {
    await this.requireProject(projectId);
    const trafficSince = this.clock() - TRAFFIC_WINDOW_MS;
    const [rows, traffic] = await Promise.all([this.layers.listPolicies(projectId), this.store.toolTraffic(projectId, trafficSince)]);
    const byTool = new Map(rows.map((row) => [row.tool, row]));
    const counts = new Map(traffic.map((row) => [row.tool, row]));
    // Tools with traffic but no row predate discovery; `*` is listed even before anyone sets it.
    const names = new Set([PROJECT_DEFAULT_TOOL, ...byTool.keys(), ...counts.keys()]);
    const tools = [...names]
      .sort((a, b) => (a === PROJECT_DEFAULT_TOOL ? -1 : b === PROJECT_DEFAULT_TOOL ? 1 : a < b ? -1 : a > b ? 1 : 0))
      .map((tool) => toEntry(tool, byTool.get(tool) ?? null, counts.get(tool)));
    return { trafficSince, tools };
  }

  async effective(projectId: string, tool: string): Promise<EffectiveToolPolicy> {
    await this.requireProject(projectId);
    const rows = await this.store.findPolicyLayers(projectId, tool);
    const project = rows.find((row) => row.tool === PROJECT_DEFAULT_TOOL) ?? null;
    const own = rows.find((row) => row.tool === tool) ?? null;
    const isDefault = tool === PROJECT_DEFAULT_TOOL;
    const overrides = parseLayer(own?.overrides);
    const resolved = resolvePolicy(isDefault ? overrides : parseLayer(project?.overrides), isDefault ? null : overrides, isDefault ? undefined : tool);
    return {
      tool,
      version: Math.max(project?.version ?? 0, own?.version ?? 0),
      ownVersion: own?.version ?? 0,
      policy: resolved.policy,
      overrides,
      sources: resolved.sources,
    };
  }

  async update(projectId: string, tool: string, overrides: PolicyOverrides, change: LayerChange) {
    await this.requireProject(projectId);
    return this.write(projectId, tool, overrides, change, null);
  }

  async restore(projectId: string, tool: string, version: number, change: LayerChange) {
    await this.requireProject(projectId);
    const revision = await this.layers.findPolicyRevision(projectId, version);
    if (!revision || revision.tool !== tool) throw new AppError("not_found", `no revision ${version} of the policy for ${tool}`);
    return this.write(projectId, tool, parseLayer(revision.after) ?? {}, change, version);
  }

  async history(projectId: string, tool: string): Promise<Revision[]> {
    await this.requireProject(projectId);
    return (await this.layers.listPolicyRevisions(projectId, tool, HISTORY_LIMIT)).map(toRevision);
  }

  /** What a draft of the tool's own layer would have decided for its latest calls. */
  async simulate(projectId: string, tool: string, draft: PolicyOverrides, sampleSize: number): Promise<Simulation> {
    await this.requireProject(projectId);
    const project = tool === PROJECT_DEFAULT_TOOL ? null : parseLayer((await this.layers.findPolicy(projectId, PROJECT_DEFAULT_TOOL))?.overrides);
    const policy = assertValidResult(tool, project, draft);
    const [inForce, ledger, fingerprint] = await Promise.all([
      this.effective(projectId, tool),
      this.store.simulationLedger(projectId, tool, sampleSize),
      this.fingerprints.current() ?? this.fingerprints.load(),
    ]);
    return simulateLedger(projectId, tool, policy, inForce.policy, ledger, fingerprint, inForce.version);
  }

  async requireProject(projectId: string): Promise<void> {
    if (!(await this.store.projectExists(projectId))) throw new AppError("not_found", `no project ${projectId}`);
  }

  private async write(projectId: string, tool: string, overrides: PolicyOverrides, change: LayerChange, restoredFrom: number | null) {
    for (let races = 0; races < MAX_WRITE_RACES; races++) {
      const [own, project] = await Promise.all([
        this.layers.findPolicy(projectId, tool),
        tool === PROJECT_DEFAULT_TOOL ? null : this.layers.findPolicy(projectId, PROJECT_DEFAULT_TOOL),
      ]);
      const current = own?.version ?? 0;
      if (change.expectedVersion !== undefined && change.expectedVersion !== current) throw versionConflict(tool, current);
      assertValidResult(tool, parseLayer(project?.overrides), overrides);

      const at = this.clock();
      const version = await this.store.writePolicy({
        projectId,
        tool,
        overrides: JSON.stringify(overrides),
        expectedVersion: current,
        before: own?.overrides ?? null,
        at,
        author: change.author ?? "admin",
        reason: change.reason,
        revisionId: newId("rev", at),
        restoredFrom,
      });
      if (version !== null) {
        const [revision, effective] = await Promise.all([
          this.layers.findPolicyRevision(projectId, version),
          this.effective(projectId, tool),
        ]);
        return { revision: toRevision(revision!), effective };
      }
      // Someone changed the layer since we read it: an explicit expectation has failed, otherwise re-read.
      if (change.expectedVersion !== undefined) throw versionConflict(tool, null);
    }
    throw new AppError("contention", "the policy is changing too fast; retry", { retryAfterSeconds: 1 });
  }
}

/**
 * Each field was validated on its own by the request schema; the merged policy must also satisfy
 * the rules between fields (e.g. retry delays). Issues point into the request body's `policy`.
 */
function assertValidResult(tool: string, project: PolicyOverrides | null, overrides: PolicyOverrides): ToolPolicy {
  const merged = tool === PROJECT_DEFAULT_TOOL ? mergePolicy(overrides, null) : mergePolicy(project, overrides, tool);
  const result = ToolPolicySchema.safeParse(merged);
  if (result.success) return merged;
  throw new AppError("invalid_input", `the resulting policy for ${tool} is invalid: ${z.prettifyError(result.error)}`, {
    issues: result.error.issues.map((issue) => ({
      path: ["policy", ...issue.path.map((part) => (typeof part === "symbol" ? String(part) : part))],
      message: issue.message,
      code: issue.code,
    })),
  });
}

function versionConflict(tool: string, current: number | null): AppError {
  const now = current === null ? "it changed meanwhile" : `it is at version ${current}`;
  return new AppError("version_conflict", `the policy for ${tool} is not at the expected version (${now}): reload and retry`);
}

function toEntry(tool: string, row: PolicyRow | null, traffic: (Omit<ToolEntry["traffic"], "dedupHits"> & { dedupHits?: number }) | undefined): ToolEntry {
  const overrides = parseLayer(row?.overrides);
  return {
    tool,
    hasPolicy: overrides !== null && Object.keys(overrides).length > 0,
    ownVersion: row?.version ?? 0,
    overrides,
    firstSeenAt: row?.firstSeenAt ?? null,
    updatedAt: row?.updatedAt ?? null,
    updatedBy: row?.updatedBy ?? null,
    traffic: { calls: traffic?.calls ?? 0, executions: traffic?.executions ?? 0, replays: traffic?.replays ?? 0, dedupHits: traffic?.dedupHits ?? 0, wouldPrevent: traffic?.wouldPrevent ?? 0 },
  };
}

function toRevision(row: PolicyRevisionRow): Revision {
  const before = parseLayer(row.before);
  const after = parseLayer(row.after);
  return {
    version: row.version,
    tool: row.tool,
    author: row.author,
    reason: row.reason,
    at: row.at,
    before,
    after,
    changes: diffOverrides(before, after),
    restoredFrom: row.restoredFrom,
  };
}
