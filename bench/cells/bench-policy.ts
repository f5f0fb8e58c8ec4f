import { DEFAULT_POLICY, PROJECT_DEFAULT_TOOL, type PolicyOverrides } from "../../lib/core/policy";
import { mergePolicy } from "../../lib/core/resolve-policy";
import type { PolicyService } from "../../lib/server/policies/policy-service";
import type { PolicySource } from "../../lib/server/policies/policy-source";

/**
 * The one policy change the benchmark makes: the loop detector still runs on every begin (reading
 * the run's history is hot-path work worth measuring) but flags a loop instead of blocking it.
 * Replay workloads replay each pool key again and again; with 32 concurrent clients the steps of
 * a run land in any order, and now and then a run's history really does show one call three times
 * in a row — which a blocking detector rightly answers `blocked`, not `replay`.
 */
export const BENCH_POLICY: PolicyOverrides = { loop: { ...DEFAULT_POLICY.loop, action: "warn" } };

const effective = { policy: mergePolicy(BENCH_POLICY, null), version: 0 };

/** In-process: the built-in policies (the SDK's default) with BENCH_POLICY on top. */
export const benchPolicies: PolicySource = { forTool: async () => effective };

/** Over HTTP: BENCH_POLICY as the project's default layer, read from the database like any policy. */
export async function applyBenchPolicy(policies: PolicyService, projectId: string): Promise<void> {
  await policies.update(projectId, PROJECT_DEFAULT_TOOL, BENCH_POLICY, { reason: "benchmark: loops flag, not block", author: "bench" });
}
