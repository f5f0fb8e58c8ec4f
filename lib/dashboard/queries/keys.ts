/** Query keys: `[resource, { projectId, ...filters }]`, so invalidating `[resource]` refreshes every page of it. */
export const queryKeys = {
  me: () => ["me"] as const,
  dedup: (projectId: string, from: string, to: string) => ["dedup", { projectId, from, to }] as const,
  shadow: (projectId: string, from: string, to: string) => ["shadow", { projectId, from, to }] as const,
  timeseries: (projectId: string, from: string, to: string, bucket: string) => ["timeseries", { projectId, from, to, bucket }] as const,
  storms: (projectId: string, status?: "open" | "closed") => ["storms", { projectId, status: status ?? null }] as const,
  storm: (projectId: string, stormId: string) => ["storm", { projectId, stormId }] as const,
  apiKeys: (projectId: string) => ["api-keys", { projectId }] as const,
  members: (projectId: string) => ["members", { projectId }] as const,
  resendRequests: (projectId: string, status?: "pending" | "approved" | "denied") => ["resend-requests", { projectId, status: status ?? null }] as const,
  policies: (projectId: string) => ["policies", { projectId }] as const,
  policy: (projectId: string, tool: string) => ["policy", { projectId, tool }] as const,
  policyHistory: (projectId: string, tool: string) => ["policy-history", { projectId, tool }] as const,
  policySimulation: (projectId: string, tool: string, draft: object | null) => ["policy-simulation", { projectId, tool, draft }] as const,
  call: (projectId: string, callId: string) => ["call", { projectId, callId }] as const,
  calls: (projectId: string, filters: object) => ["calls", { projectId, ...filters }] as const,
  callEvents: (projectId: string, callId: string) => ["call-events", { projectId, callId }] as const,
  runs: (projectId: string) => ["runs", { projectId }] as const,
  run: (projectId: string, runId: string) => ["run", { projectId, runId }] as const,
  saga: (projectId: string, runId: string) => ["saga", { projectId, runId }] as const,
  previews: (projectId: string, status?: string) => ["previews", { projectId, status: status ?? null }] as const,
  operatorQueue: (projectId: string, from: string, to: string) => ["operator-queue", { projectId, from, to }] as const,
  runBudget: (projectId: string, runId: string) => ["run-budget", { projectId, runId }] as const,
  audit: (projectId: string, filters: object = {}) => ["audit", { projectId, ...filters }] as const,
};

/** Dashboards poll; these intervals keep the server load small. */
export const POLL_MS = 10_000;
