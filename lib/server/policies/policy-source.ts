import { type EffectivePolicy, PROJECT_DEFAULT_TOOL, type PolicyOverrides, defaultEffectivePolicyFor } from "../../core/policy";
import { mergePolicy } from "../../core/resolve-policy";
import type { GateStore } from "../../store/ports/gate-store";
import type { PolicyRow } from "../../store/ports/policy-store";
import { policyStamp } from "../../store/hot/shared/policy-statements";

export interface PolicyLookup extends EffectivePolicy {
  /** False when the gate has never seen a begin for the tool: the caller records its discovery. */
  known?: boolean;
  /** Sources that read the store's layers: what they were made of (policy-statements.ts, policyStamp). */
  stamp?: string;
}

/** Where the engine gets a tool's policy. */
export interface PolicySource {
  forTool(projectId: string, tool: string): Promise<PolicyLookup>;
  /**
   * Sources whose policies are the store's layers: the policy those layers make, so a Postgres
   * begin can read them in its own statement (GateStore.beginStatement) instead of asking forTool.
   */
  fromLayers?(projectId: string, tool: string, rows: readonly PolicyRow[]): PolicyLookup;
}

/** Built-in defaults only, no database: for embedding the engine without an operator. */
export const defaultPolicies: PolicySource = {
  forTool: async (_projectId, tool) => defaultEffectivePolicyFor(tool),
};

const MEMO_LIMIT = 1_000;

/**
 * The policies operators set, read from the database on every call with one indexed query, so a
 * change applies to the very next decision in every server process. What is memoised is only the
 * parse-and-merge, keyed by the layers' revision numbers, which never name two contents.
 */
export class StorePolicySource implements PolicySource {
  private readonly merged = new Map<string, EffectivePolicy>();

  constructor(private readonly store: GateStore) {}

  async forTool(projectId: string, tool: string): Promise<PolicyLookup> {
    return this.fromLayers(projectId, tool, await this.store.findPolicyLayers(projectId, tool));
  }

  fromLayers(projectId: string, tool: string, rows: readonly PolicyRow[]): PolicyLookup {
    const stamp = policyStamp(rows, tool);
    const project = rows.find((row) => row.tool === PROJECT_DEFAULT_TOOL) ?? null;
    const own = rows.find((row) => row.tool === tool) ?? null;
    const known = own !== null && own.firstSeenAt !== null;
    if (project?.overrides == null && own?.overrides == null) return { ...defaultEffectivePolicyFor(tool), known, stamp };

    const memoKey = `${projectId}\u0000${tool}\u0000${project?.version ?? 0}\u0000${own?.version ?? 0}`;
    let effective = this.merged.get(memoKey);
    if (!effective) {
      effective = {
        policy: mergePolicy(parseLayer(project?.overrides), parseLayer(own?.overrides), tool),
        version: Math.max(project?.version ?? 0, own?.version ?? 0),
      };
      if (this.merged.size >= MEMO_LIMIT) this.merged.clear();
      this.merged.set(memoKey, effective);
    }
    return { ...effective, known, stamp };
  }
}

/** Layers were validated against the policy schema when they were written. */
export function parseLayer(text: string | null | undefined): PolicyOverrides | null {
  return text == null ? null : (JSON.parse(text) as PolicyOverrides);
}
