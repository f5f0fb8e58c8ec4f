import type { CallSignature } from "../../core/loop-detector";

/** One row per (project, tool) seen or configured; tool `*` is the project's default layer. */
export interface PolicyRow {
  tool: string;
  /** JSON of the layer's overrides; null for a tool only discovered, never configured. */
  overrides: string | null;
  /** Project-wide revision of the layer's last change; 0 = never configured. */
  version: number;
  /** First begin for the tool; null until it is called (and always for `*`). */
  firstSeenAt: number | null;
  updatedAt: number | null;
  updatedBy: string | null;
}

export interface PolicyRevisionRow {
  id: string;
  projectId: string;
  tool: string;
  version: number;
  author: string;
  reason: string;
  at: number;
  before: string | null;
  after: string | null;
  restoredFrom: number | null;
}

/** A compare-and-set change of one layer, written together with its revision. */
export interface PolicyWrite {
  projectId: string;
  tool: string;
  overrides: string;
  /** The layer's version the change was computed from (0 when it had none). */
  expectedVersion: number;
  before: string | null;
  at: number;
  author: string;
  reason: string;
  revisionId: string;
  restoredFrom: number | null;
}

export interface ToolTrafficRow {
  tool: string;
  calls: number;
  executions: number;
  replays: number;
}

/** A past begin of a tool, with what its record knows about the call (for the policy simulator). */
export interface SampledBegin {
  runId: string;
  agentId: string | null;
  toolCallId: string | null;
  decision: string;
  at: number;
  /** The call's own fingerprint under the policy it was decided by (null before it was recorded). */
  argsFingerprint: string | null;
  loopWarned: boolean;
  /** From the record the begin landed on (null when it has none, e.g. a blocked begin). */
  stepId: string | null;
  scope: string | null;
  recordArgs: string | null;
  recordFingerprint: string | null;
  recordState: string | null;
}

/** Policy storage: the hot reads run on every begin (one indexed query each), the rest is operator-side. */
export interface PolicyStore {
  /** The `*` layer and the tool's own, in one query: `tool IN ($tool, '*')`. */
  findPolicyLayers(projectId: string, tool: string): Promise<PolicyRow[]>;
  /** Marks the tool as seen (once): it is listed from then on, with or without a policy. */
  discoverTool(projectId: string, tool: string, at: number): Promise<void>;
  /** The run's latest loop steps, newest first. */
  loopHistory(projectId: string, runId: string, limit: number): Promise<CallSignature[]>;
  projectExists(projectId: string): Promise<boolean>;
  listPolicies(projectId: string): Promise<PolicyRow[]>;
  findPolicy(projectId: string, tool: string): Promise<PolicyRow | null>;
  /** The new revision's version; null when the layer is no longer at `expectedVersion`. */
  writePolicy(write: PolicyWrite): Promise<number | null>;
  listPolicyRevisions(projectId: string, tool: string, limit: number): Promise<PolicyRevisionRow[]>;
  findPolicyRevision(projectId: string, version: number): Promise<PolicyRevisionRow | null>;
  toolTraffic(projectId: string, since: number): Promise<ToolTrafficRow[]>;
  /** The tool's latest begins, newest first. */
  sampleBegins(projectId: string, tool: string, limit: number): Promise<SampledBegin[]>;
}
