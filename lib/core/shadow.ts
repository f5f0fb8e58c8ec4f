/**
 * Shadow mode: the decisions the gate would have given instead of `execute` that would have kept a
 * duplicate from running (a replay, a wait on the live attempt, a refusal, a conflict). The
 * overview's and tools page's "would have prevented N duplicate executions" counts these.
 */
export const SHADOW_PREVENTED = ["would_replay", "would_wait", "would_refuse", "would_conflict"] as const;

/** `'would_replay', 'would_wait', …` for an SQL IN list (constants, never user input). */
export const SHADOW_PREVENTED_SQL = SHADOW_PREVENTED.map((name) => `'${name}'`).join(", ");
