import { DEFAULT_POLICY, NESTED_FIELDS, builtinPolicyFor, isHttpRouteTool, type NestedField, type PolicyOverrides, type ToolPolicy } from "./policy";

/** Where an effective field came from: the built-in default, the project's `*` policy, or the tool's own. */
export type PolicyOrigin = "builtin" | "project" | "tool";

export interface ResolvedPolicy {
  policy: ToolPolicy;
  /** One entry per leaf field (`effect`, `retry.maxAttempts`, …). */
  sources: Record<string, PolicyOrigin>;
}

const isNested = (field: string): field is NestedField => (NESTED_FIELDS as readonly string[]).includes(field);

/**
 * DEFAULT_POLICY ← project `*` overrides ← tool overrides, field by field (nested objects too).
 * Given the tool's name, an HTTP route (`POST /v1/refunds`) starts from its own built-in policy and
 * takes `ignoreFields` from its own layer only: a route's payload is what the client sent, and a
 * project-wide list meant for agents' arguments (timestamps, request ids) never hides a change in
 * a body.
 */
export function mergePolicy(project: PolicyOverrides | null, tool: PolicyOverrides | null, toolName?: string): ToolPolicy {
  const route = toolName !== undefined && isHttpRouteTool(toolName);
  let policy: ToolPolicy = toolName === undefined ? DEFAULT_POLICY : builtinPolicyFor(toolName);
  const inherited = route && project ? withoutIgnoreFields(project) : project;
  for (const layer of [inherited, tool]) if (layer) policy = applyLayer(policy, layer);
  return policy;
}

function withoutIgnoreFields(layer: PolicyOverrides): PolicyOverrides {
  const { ignoreFields: _dropped, ...rest } = layer;
  return rest;
}

function applyLayer(base: ToolPolicy, layer: PolicyOverrides): ToolPolicy {
  const next: Record<string, unknown> = { ...base };
  for (const [field, value] of Object.entries(layer)) {
    if (value === undefined) continue;
    next[field] = isNested(field) ? { ...base[field], ...definedEntries(value as object) } : value;
  }
  return next as unknown as ToolPolicy;
}

function definedEntries(value: object): Record<string, unknown> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined));
}

/** The merged policy plus, for every leaf field, which layer set it: what an operator needs to see. */
export function resolvePolicy(project: PolicyOverrides | null, tool: PolicyOverrides | null, toolName?: string): ResolvedPolicy {
  const sources: Record<string, PolicyOrigin> = {};
  const route = toolName !== undefined && isHttpRouteTool(toolName);
  for (const path of leafPaths(DEFAULT_POLICY)) sources[path] = "builtin";
  for (const path of leafPaths(project ?? {})) if (!(route && path === "ignoreFields")) sources[path] = "project";
  for (const path of leafPaths(tool ?? {})) sources[path] = "tool";
  return { policy: mergePolicy(project, tool, toolName), sources };
}

/** `effect`, `ignoreFields`, `retry.maxAttempts`, …: lists are leaves, the nested objects are not. */
export function leafPaths(policy: PolicyOverrides | ToolPolicy): string[] {
  return Object.entries(leafValues(policy)).map(([path]) => path);
}

function leafValues(policy: PolicyOverrides | ToolPolicy): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(policy)) {
    if (value === undefined) continue;
    if (isNested(field)) {
      for (const [inner, innerValue] of Object.entries(value as object)) {
        if (innerValue !== undefined) out[`${field}.${inner}`] = innerValue;
      }
    } else {
      out[field] = value;
    }
  }
  return out;
}

export interface PolicyChange {
  path: string;
  /** Absent when the field was inherited before the change. */
  before?: unknown;
  /** Absent when the field is inherited after the change. */
  after?: unknown;
}

/** Leaf-by-leaf difference of two override layers, for revision history. */
export function diffOverrides(before: PolicyOverrides | null, after: PolicyOverrides | null): PolicyChange[] {
  const a = leafValues(before ?? {});
  const b = leafValues(after ?? {});
  const paths = [...new Set([...Object.keys(a), ...Object.keys(b)])].sort();
  const changes: PolicyChange[] = [];
  for (const path of paths) {
    if (JSON.stringify(a[path]) === JSON.stringify(b[path])) continue;
    changes.push({ path, ...(path in a ? { before: a[path] } : {}), ...(path in b ? { after: b[path] } : {}) });
  }
  return changes;
}
