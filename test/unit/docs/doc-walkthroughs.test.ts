import { describe, expect, it } from "vitest";
import { checkOutput, scriptFor, shellBlocks, steps } from "../../helpers/doc-walkthroughs.mjs";

const doc = [
  "Shown, never run:",
  "```bash",
  "rm -rf /",
  "```",
  "Run:",
  "```sh",
  "X=1",
  'echo \'{"decision":"execute","callId":"call_9","attempt":1}\'',
  '# → {"decision":"execute","callId":"call_…","attempt":1,…}',
  "echo '{\"status\":\"pending\",\"steps\":[{\"status\":\"pending\"}]}'",
  '# → {"status":"pending",',
  '#    "steps":[{"status":"pending"}]}',
  "echo done",
  "```",
].join("\n");

describe("the docs' walk-throughs as scripts", () => {
  it("runs ```sh blocks only, split into steps at each shown answer, and checks only the fields shown in full", () => {
    const blocks = shellBlocks(doc);
    expect(blocks).toHaveLength(1);
    expect(steps(blocks[0]!).map((step) => step.expected)).toEqual([
      ['"decision":"execute"', '"attempt":1'],
      ['"status":"pending"', '"status":"pending"'],
      [],
    ]);
  });

  it("a step whose output lacks a shown field is a problem; one that never ran is too", () => {
    const blocks = shellBlocks(doc);
    const script = scriptFor(blocks);
    expect(script.startsWith("set -e -o pipefail\n")).toBe(true);
    const good = '\n@@walkthrough-step 0\n{"decision":"execute","attempt":1}\n@@walkthrough-step 1\n{"status":"pending"}\n@@walkthrough-step 2\ndone\n';
    expect(checkOutput(blocks, good)).toEqual([]);
    expect(checkOutput(blocks, good.replace('"attempt":1', '"attempt":2'))).toHaveLength(1);
    expect(checkOutput(blocks, '\n@@walkthrough-step 0\n{"decision":"execute","attempt":1}\n')[0]).toMatch(/step 1 never ran/);
  });
});
