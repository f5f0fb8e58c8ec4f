import { DEFAULT_EFFECTIVE_POLICY, type EffectivePolicy } from "../core/policy";

/** Where the engine gets a tool's policy. Per-tool policies replace the default source. */
export interface PolicySource {
  forTool(projectId: string, tool: string): Promise<EffectivePolicy>;
}

export const defaultPolicies: PolicySource = {
  forTool: async () => DEFAULT_EFFECTIVE_POLICY,
};
