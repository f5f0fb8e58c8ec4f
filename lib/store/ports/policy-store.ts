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
  /** Shadow mode: executions the gate would have prevented as duplicates (core/shadow.ts). */
  /** replay + in_progress + refused: the overview's "Dedup hits" (DEDUP_HIT_DECISIONS). */
  dedupHits?: number;
  wouldPrevent: number;
}

/** One event of a tool's ledger, with what its record (if still kept) knows about the call. */
export interface LedgerEventRow {
  id: string;
  type: string;
  decision: string;
  at: number;
  key: string;
  callId: string | null;
  attempt: number;
  runId: string;
  agentId: string | null;
  toolCallId: string | null;
  argsFingerprint: string | null;
  loopStep: boolean;
  detail: string | null;
  recordFound: boolean;
  stepId: string | null;
  scope: string | null;
  recordArgs: string | null;
  recordFingerprint: string | null;
  /** The policy revision the event was decided under (optional: older readers leave it out). */
  policyVersion?: number | null;
  /** Shadow mode: `would_…`. */
  shadowDecision?: string | null;
}

/** A loop step of a sampled run, in another tool or from before the sampled span. */
export interface LedgerStepRow {
  id: string;
  runId: string;
  tool: string;
  argsFingerprint: string;
}

/** What the policy simulator reads: events oldest first; begins from `countedFrom` on are the sample. */
export interface SimulationLedgerRows {
  countedFrom: string;
  events: LedgerEventRow[];
  steps: LedgerStepRow[];
}

/** The operators' reads of layers and their history (lib/store/prisma/policy-repository.ts). */
export interface PolicyHistory {
  listPolicies(projectId: string): Promise<PolicyRow[]>;
  findPolicy(projectId: string, tool: string): Promise<PolicyRow | null>;
  listPolicyRevisions(projectId: string, tool: string, limit: number): Promise<PolicyRevisionRow[]>;
  findPolicyRevision(projectId: string, version: number): Promise<PolicyRevisionRow | null>;
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
  /** The new revision's version; null when the layer is no longer at `expectedVersion`. */
  writePolicy(write: PolicyWrite): Promise<number | null>;
  toolTraffic(projectId: string, since: number): Promise<ToolTrafficRow[]>;
  /** The tool's latest `sampleSize` begins with the ledger around them (simulation-statements.ts). */
  simulationLedger(projectId: string, tool: string, sampleSize: number): Promise<SimulationLedgerRows>;
}
