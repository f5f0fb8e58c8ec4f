import { existsSync, readFileSync, readdirSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const root = path.resolve(import.meta.dirname, "../../..");
const guides = readdirSync(path.join(root, "docs")).filter((name) => name.endsWith(".md")).map((name) => `docs/${name}`);
const documents = ["README.md", ...guides];
const read = (file: string) => readFileSync(path.join(root, file), "utf8");

/** Outside code fences: links and headings inside a shell or JSON block are not Markdown. */
const prose = (text: string) => text.replace(/^```[\s\S]*?^```$/gm, "");

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens. */
const anchor = (heading: string) =>
  heading
    .toLowerCase()
    .replace(/`/g, "")
    .replace(/[^\p{L}\p{N}\s_-]/gu, "")
    .trim()
    .replace(/\s/g, "-");

const anchorsOf = (file: string) => new Set([...prose(read(file)).matchAll(/^#{1,6} (.+)$/gm)].map((match) => anchor(match[1]!)));

describe("docs: the README is the front door, the guides hold the rest", () => {
  it("the README fits on a few screens and sends readers to every guide", () => {
    const readme = read("README.md");
    expect(readme.split("\n").length).toBeLessThan(300);
    for (const guide of guides) expect(readme, guide).toContain(`](${guide})`);
  });

  it("no document points outside the repository for its own design (DESIGN.md, STACK.md are not in it)", () => {
    for (const file of documents) expect(read(file), file).not.toMatch(/\b(DESIGN|STACK|STYLE)\.md\b/);
  });

  it("every file of this repository the docs name exists (files move: lib/server was regrouped once)", () => {
    const missing: string[] = [];
    for (const file of documents) {
      for (const match of read(file).matchAll(/\b(?:lib|test|bench|scripts|prisma|python|components)\/[\w./[\]-]+\.(?:ts|tsx|mts|mjs|md|py|prisma)\b/g)) {
        if (!existsSync(path.join(root, match[0]))) missing.push(`${file}: ${match[0]}`);
      }
    }
    expect(missing).toEqual([]);
  });

  it("every relative link reaches a file, and every #anchor a heading of it", () => {
    const broken: string[] = [];
    for (const file of documents) {
      for (const match of prose(read(file)).matchAll(/\]\(([^)\s]+)\)/g)) {
        const target = match[1]!;
        if (/^[a-z]+:/.test(target)) continue;
        const [filePart, hash] = target.split("#", 2) as [string, string | undefined];
        const resolved = filePart === "" ? file : path.join(path.dirname(file), filePart);
        if (!existsSync(path.join(root, resolved))) {
          broken.push(`${file}: ${target} (no ${resolved})`);
          continue;
        }
        if (hash !== undefined && resolved.endsWith(".md") && !anchorsOf(resolved).has(hash)) broken.push(`${file}: ${target} (no such heading)`);
      }
    }
    expect(broken).toEqual([]);
  });
});
