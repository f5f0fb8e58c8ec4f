import { readFileSync } from "node:fs";
import path from "node:path";
import { BaseSequencer, type TestSpecification } from "vitest/node";

/**
 * Files start longest first, so a slow file never begins late and runs on alone. Vitest does this
 * itself from its results cache (node_modules/.vite), but a clean clone has no cache, and then vitest
 * starts the largest files first, which are not the longest: the slowest integration file
 * (alert-storm-burst, 146 lines) started 38th of 97, mcp-gateway-idle 47th, bench-smoke 69th.
 * test/file-seconds.json holds the wall times of every file over 8 s from a clean-clone `npm test`
 * (refresh it from that run's report: `node scripts/lib/slowest-files.mjs <vitest.json> 70 --json`;
 * only the order matters, so a run on a busy machine serves, minus any file that hung in it); a file
 * with a time in vitest's own cache uses that instead, and files in neither follow, largest first.
 */
const estimates: Record<string, number> = JSON.parse(readFileSync(path.join(import.meta.dirname, "file-seconds.json"), "utf8"));

export default class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const base = await super.sort(files);
    const rank = new Map(base.map((spec, i) => [spec, i]));
    const root = this.ctx.config.root;
    const seconds = (spec: TestSpecification): number | null => {
      const file = path.relative(root, spec.moduleId);
      const cached = this.ctx.cache.getFileTestResults(`${spec.project.name}:${file}`);
      if (cached && !cached.failed && cached.duration > 0) return cached.duration / 1000;
      return estimates[file] ?? null;
    };
    return [...base].sort((a, b) => {
      // Groups and projects keep vitest's order (unit, then integration, then chaos alone).
      const group = a.project.config.sequence.groupOrder - b.project.config.sequence.groupOrder;
      if (group !== 0 || a.project.name !== b.project.name) return rank.get(a)! - rank.get(b)!;
      const sa = seconds(a);
      const sb = seconds(b);
      if (sa !== null && sb !== null) return sb - sa;
      if (sa !== null) return -1;
      if (sb !== null) return 1;
      return rank.get(a)! - rank.get(b)!;
    });
  }
}
