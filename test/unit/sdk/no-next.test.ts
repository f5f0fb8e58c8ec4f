import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = path.resolve(import.meta.dirname, "../../..");
const ENTRIES = ["lib/sdk/index.ts", "lib/sdk/adapters/ai-sdk.ts", "lib/sdk/adapters/openai-agents.ts", "lib/sdk/adapters/langgraph.ts"];
const IMPORT = /(?:^|\n)\s*(?:import|export)\s[^;]*?from\s+["']([^"']+)["']/g;

/** Every module reachable from the SDK's entry points, and the packages they import. */
function importGraph(): { files: Set<string>; packages: Set<string> } {
  const files = new Set<string>();
  const packages = new Set<string>();
  const queue = ENTRIES.map((entry) => path.join(ROOT, entry));
  while (queue.length > 0) {
    const file = queue.pop()!;
    if (files.has(file)) continue;
    files.add(file);
    for (const [, specifier] of readFileSync(file, "utf8").matchAll(IMPORT)) {
      if (!specifier!.startsWith(".") && !specifier!.startsWith("@/")) {
        packages.add(specifier!.startsWith("@") ? specifier!.split("/").slice(0, 2).join("/") : specifier!.split("/")[0]!);
        continue;
      }
      const base = specifier!.startsWith("@/") ? path.join(ROOT, specifier!.slice(2)) : path.resolve(path.dirname(file), specifier!);
      const resolved = [`${base}.ts`, `${base}.tsx`, path.join(base, "index.ts")].find(existsSync);
      if (resolved) queue.push(resolved);
    }
  }
  return { files, packages };
}

describe("lib/sdk stays usable from any Node agent runtime", () => {
  it("reaches no Next.js, React or Prisma module, however the modules it uses change", () => {
    const { files, packages } = importGraph();
    expect(files.size).toBeGreaterThan(5);
    const forbidden = [...packages].filter((p) => /^(next|react|react-dom|@prisma\/client|prisma)$/.test(p));
    expect(forbidden).toEqual([]);
    expect([...files].filter((f) => f.includes(`${path.sep}app${path.sep}`))).toEqual([]);
  });
});
