import { z } from "zod";
import type { EffectivePolicyResponse } from "../contract/admin-policies";
import { PolicyOverridesSchema } from "../contract/policy";

/** One editable leaf of a policy, read off the zod schema so the form never drifts from it. */
export interface PolicyField {
  path: string;
  kind: "enum" | "number" | "boolean" | "list";
  options?: readonly string[];
  description?: string;
  /** A number that may be `null` (no limit: budgets): an empty field means null. */
  nullable?: boolean;
}

type Draft = Record<string, string | undefined>;

function leaf(path: string, schema: z.ZodType): PolicyField | null {
  const unwrapped = schema instanceof z.ZodOptional ? (schema.unwrap() as z.ZodType) : schema;
  const nullable = unwrapped instanceof z.ZodNullable;
  const inner = nullable ? ((unwrapped as z.ZodNullable<z.ZodType>).unwrap() as z.ZodType) : unwrapped;
  const description = schema.description ?? unwrapped.description ?? inner.description;
  if (inner instanceof z.ZodNumber && nullable) return { path, kind: "number", description, nullable };
  if (inner instanceof z.ZodString && path === "budget.currency") return { path, kind: "enum", options: ["USD", "EUR", "GBP", "JPY", "CHF", "CAD", "AUD"], description };
  if (inner instanceof z.ZodEnum) return { path, kind: "enum", options: inner.options as string[], description };
  if (inner instanceof z.ZodNumber) return { path, kind: "number", description };
  if (inner instanceof z.ZodBoolean) return { path, kind: "boolean", options: ["true", "false"], description };
  if (inner instanceof z.ZodArray) return { path, kind: "list", description };
  return null;
}

/** Every leaf field of a policy layer, nested objects (`retry.maxAttempts`, …) flattened. */
export function policyFields(): PolicyField[] {
  const fields: PolicyField[] = [];
  for (const [name, schema] of Object.entries(PolicyOverridesSchema.shape)) {
    const inner = schema instanceof z.ZodOptional ? schema.unwrap() : schema;
    if (inner instanceof z.ZodObject) {
      for (const [sub, subSchema] of Object.entries(inner.shape as Record<string, z.ZodType>)) {
        const field = leaf(`${name}.${sub}`, subSchema);
        if (field) fields.push(field);
      }
    } else {
      const field = leaf(name, schema as z.ZodType);
      if (field) fields.push(field);
    }
  }
  return fields;
}

function get(obj: unknown, path: string): unknown {
  return path.split(".").reduce<unknown>((v, k) => (v && typeof v === "object" ? (v as Record<string, unknown>)[k] : undefined), obj);
}

function show(value: unknown): string {
  if (Array.isArray(value)) return value.join(", ");
  return value === undefined || value === null ? "" : String(value);
}

/** The form's starting draft: the tool's own layer; fields it does not set are inherited (undefined). */
export function draftFromOverrides(overrides: EffectivePolicyResponse["overrides"], fields: PolicyField[]): Draft {
  const draft: Draft = {};
  for (const f of fields) {
    const v = get(overrides, f.path);
    if (v !== undefined) draft[f.path] = show(v);
  }
  return draft;
}

/** What an inherited field currently resolves to, and from which layer. */
export function inheritedValue(effective: EffectivePolicyResponse, path: string): { value: string; source: string } {
  return { value: show(get(effective.policy, path)), source: effective.sources[path] ?? "builtin" };
}

function convert(field: PolicyField, raw: string): unknown {
  if (field.kind === "number") return raw.trim() === "" ? (field.nullable ? null : Number.NaN) : Number(raw);
  if (field.kind === "boolean") return raw === "true";
  if (field.kind === "list") return raw.split(",").map((s) => s.trim()).filter(Boolean);
  return raw;
}

/**
 * The draft as a policy layer, validated by the same zod schema the API uses. Errors are keyed by
 * field path, for inline messages.
 */
export function buildOverrides(draft: Draft, fields: PolicyField[]): { ok: true; policy: z.infer<typeof PolicyOverridesSchema> } | { ok: false; errors: Record<string, string> } {
  const out: Record<string, unknown> = {};
  for (const f of fields) {
    const raw = draft[f.path];
    if (raw === undefined) continue;
    const [head = "", tail] = f.path.split(".");
    if (tail) out[head] = { ...(out[head] as object | undefined), [tail]: convert(f, raw) };
    else out[head] = convert(f, raw);
  }
  const parsed = PolicyOverridesSchema.safeParse(out);
  if (parsed.success) return { ok: true, policy: parsed.data };
  const errors: Record<string, string> = {};
  for (const issue of parsed.error.issues) {
    const path = issue.path.join(".");
    errors[path] ??= issue.code === "invalid_type" && issue.expected === "number" ? "Enter a number" : issue.message;
  }
  return { ok: false, errors };
}

/**
 * The form's sections (issue #38 §2: 34+ fields on one screen were a wall). Each field path, or
 * its object (`loop` for every `loop.*`), belongs to one section; a field the schema gains later
 * and no section names lands in "Other", so it can never vanish from the form.
 */
export const POLICY_SECTIONS = [
  { id: "identity", title: "Identity and keys", paths: ["effect", "keyStrategy", "scopeFrom", "ignoreFields", "redactFields", "keepHeaders"] },
  { id: "duplicates", title: "Duplicates", paths: ["mode", "onDuplicate", "onArgsMismatch", "bypass", "cacheFailures", "onPermanentFailure", "toolErrors", "retry"] },
  { id: "leases", title: "Leases and TTL", paths: ["ttlSeconds", "acceptedTtlSeconds", "leaseSeconds", "leaseGraceSeconds", "mcp"] },
  { id: "loops", title: "Loops and budgets", paths: ["loop", "budget"] },
  { id: "approvals", title: "Approvals and previews", paths: ["preview"] },
  { id: "storms", title: "Storms", paths: ["storm"] },
] as const;

export function groupPolicyFields(fields: PolicyField[]): { id: string; title: string; fields: PolicyField[] }[] {
  const sectionOf = (path: string) => POLICY_SECTIONS.find((s) => (s.paths as readonly string[]).includes(path) || (s.paths as readonly string[]).includes(path.split(".")[0]!));
  const groups = POLICY_SECTIONS.map((s) => ({ id: s.id as string, title: s.title as string, fields: fields.filter((f) => sectionOf(f.path) === s) }));
  const other = fields.filter((f) => !sectionOf(f.path));
  return [...groups, ...(other.length > 0 ? [{ id: "other", title: "Other", fields: other }] : [])].filter((g) => g.fields.length > 0);
}
