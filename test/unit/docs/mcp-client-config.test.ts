import { existsSync, readFileSync, readdirSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const root = path.resolve(import.meta.dirname, "../../..");
/** The README and the guides it sends readers to: wherever a config is shown, a reader copies it. */
const documents = ["README.md", ...readdirSync(path.join(root, "docs")).filter((name) => name.endsWith(".md")).map((name) => `docs/${name}`)].map(
  (file) => ({ file, text: readFileSync(path.join(root, file), "utf8") }),
);
const guide = readFileSync(path.join(root, "docs/mcp-gateway.md"), "utf8");
const pkg = JSON.parse(readFileSync(path.join(root, "package.json"), "utf8")) as { name: string; private?: boolean; bin: Record<string, string> };

/** Every `mcpServers` entry in the docs' JSON blocks: what a reader copies into a client's config. */
function mcpServerConfigs(): { name: string; command: string; args: string[] }[] {
  const blocks = documents.flatMap(({ text }) => [...text.matchAll(/```json\n([\s\S]*?)```/g)].map((match) => match[1]!));
  return blocks.flatMap((block) => {
    if (!block.includes('"mcpServers"')) return [];
    const { mcpServers } = JSON.parse(block) as { mcpServers: Record<string, { command: string; args?: string[] }> };
    return Object.entries(mcpServers).map(([name, server]) => ({ name, command: server.command, args: server.args ?? [] }));
  });
}

describe("README and guides: the MCP client config runs this checkout's entrypoint, never a registry name", () => {
  it("the package is not published, so no config may fetch it by name (npx, pnpm dlx, bunx, yarn dlx)", () => {
    expect(pkg.private).toBe(true);
    // In anything a reader copies (the fenced blocks); the prose may name it to warn against it.
    const fenced = documents.flatMap(({ text }) => [...text.matchAll(/```[a-z]*\n([\s\S]*?)```/g)].map((match) => match[1]!)).join("\n");
    expect(fenced).not.toMatch(new RegExp(`\\b(npx|bunx|pnpm dlx|yarn dlx)\\s+(-y\\s+)?${pkg.name}\\b`));
    const configs = mcpServerConfigs();
    expect(configs.length).toBeGreaterThan(0);
    for (const config of configs) {
      expect(["npx", "bunx", "pnpm", "yarn"], config.name).not.toContain(path.basename(config.command));
      expect(config.args, config.name).not.toContain(pkg.name);
    }
  });

  it("each config runs node on the package's own bin file, by absolute path, and the MCP guide says how to pin the checkout", () => {
    const bin = pkg.bin[pkg.name]!;
    expect(existsSync(path.join(root, bin))).toBe(true);
    for (const config of mcpServerConfigs()) {
      expect(path.basename(config.command)).toBe("node");
      expect(path.isAbsolute(config.command)).toBe(true);
      const [script, command] = config.args;
      expect(path.isAbsolute(script!)).toBe(true);
      expect(script!.endsWith(`/${bin}`)).toBe(true);
      expect(command).toBe("mcp");
    }
    expect(guide).toMatch(/git -C \S+ checkout --detach <commit>/);
    // A document that shows a config sends its reader to the pinning steps, or has them.
    for (const { file, text } of documents) {
      if (!text.includes('"mcpServers"')) continue;
      expect(text.includes("checkout --detach <commit>") || text.includes("mcp-gateway.md"), file).toBe(true);
    }
  });
});
