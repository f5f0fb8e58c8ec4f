/** One field that differs between two argument sets (paths like `items[0].qty`). */
export interface ArgsChange {
  path: string;
  kind: "changed" | "added" | "removed";
  before?: unknown;
  after?: unknown;
}

function leaves(value: unknown, path: string, out: Map<string, unknown>): void {
  if (Array.isArray(value) && value.length > 0) {
    value.forEach((item, i) => leaves(item, `${path}[${i}]`, out));
  } else if (value !== null && typeof value === "object" && Object.keys(value).length > 0) {
    for (const [key, item] of Object.entries(value as Record<string, unknown>)) leaves(item, path ? `${path}.${key}` : key, out);
  } else {
    out.set(path || "(args)", value);
  }
}

/**
 * The fields that differ between the original arguments and the new ones, leaf by leaf, in the
 * order they appear (original first, then fields only the new set has). Equal sets give no rows.
 */
export function diffArgs(before: unknown, after: unknown): ArgsChange[] {
  const a = new Map<string, unknown>();
  const b = new Map<string, unknown>();
  if (before !== undefined) leaves(before, "", a);
  if (after !== undefined) leaves(after, "", b);
  const changes: ArgsChange[] = [];
  for (const [path, value] of a) {
    if (!b.has(path)) changes.push({ path, kind: "removed", before: value });
    else if (JSON.stringify(b.get(path)) !== JSON.stringify(value)) changes.push({ path, kind: "changed", before: value, after: b.get(path) });
  }
  for (const [path, value] of b) if (!a.has(path)) changes.push({ path, kind: "added", after: value });
  return changes;
}
