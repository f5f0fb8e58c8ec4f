import type { PolicyOverrides } from "../../../core/policy";

/** MCP tool annotations (the spec calls them untrusted hints: defaults only, never overrides). */
export interface ToolAnnotations {
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
}

export const SEED_AUTHOR = "mcp-annotations";

/**
 * The policy layer a tool gets on first sight from its annotations, or null when they say nothing
 * the defaults do not: read-only → `effect: read` (recorded, never deduped); idempotent →
 * deduped, but a resend runs without an operator (`bypass: allow`); destructive → the defaults
 * (deduped, resends need approval), and the UI shows the hint.
 */
export function seedFromAnnotations(annotations: ToolAnnotations | undefined): PolicyOverrides | null {
  if (!annotations) return null;
  if (annotations.readOnlyHint === true) return { effect: "read" };
  if (annotations.destructiveHint === true) return { effect: "write", bypass: "approval" };
  if (annotations.idempotentHint === true) return { effect: "write", bypass: "allow" };
  return null;
}

/** The four hints the spec defines, as booleans (the tools page shows them beside the policy). */
export function pickHints(annotations: ToolAnnotations | undefined): ToolAnnotations {
  const hints: ToolAnnotations = {};
  for (const key of ["readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"] as const) {
    if (typeof annotations?.[key] === "boolean") hints[key] = annotations[key];
  }
  return hints;
}
