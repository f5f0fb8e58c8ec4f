import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, readdirSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { checkOutput, scriptFor, shellBlocks } from "../helpers/doc-walkthroughs.mjs";
import { type TestDatabase, createTestDatabase } from "../helpers/databases";
import { type TestServer, startServer } from "../helpers/server";

const root = path.resolve(import.meta.dirname, "../..");
const documents = ["README.md", ...readdirSync(path.join(root, "docs")).filter((name) => name.endsWith(".md")).map((name) => `docs/${name}`)];
const walkthroughs = documents
  .map((file) => ({ file, blocks: shellBlocks(readFileSync(path.join(root, file), "utf8")) }))
  .filter(({ blocks }) => blocks.length > 0);

/**
 * The docs cannot drift from the product: every ```sh block of the README and the guides is typed
 * into a shell as a reader would (one shell per document, in the order shown), against a real
 * server started as `npm start` starts it, the demo project seeded. The reader's terminal is a
 * directory with the server's `data/demo-key.txt`, and `PORT` is the server's port, which the
 * blocks read as `PORT=${PORT:-3000}`. Every `"field":value` an answer shows (`# → {…}`) must be in
 * what its command printed.
 */
describe("docs: the walk-throughs run as written", () => {
  let db: TestDatabase;
  let server: TestServer;
  let terminal: string;
  beforeAll(async () => {
    terminal = mkdtempSync(path.join(inject("tmpRoot"), "reader-"));
    mkdirSync(path.join(terminal, "data"));
    db = await createTestDatabase("sqlite");
    server = await startServer(db.url, { IDEMGATE_SEED_DEMO: "true", IDEMGATE_DATA_DIR: path.join(terminal, "data") });
  });
  afterAll(async () => {
    await server?.stop();
    await db?.drop();
  });

  it("the README has a walk-through, and its answers show what to expect", () => {
    const readme = walkthroughs.find(({ file }) => file === "README.md");
    expect(readme?.blocks.length).toBeGreaterThan(1);
    expect(readme!.blocks.join("\n")).toContain("PORT=${PORT:-3000}");
  });

  it.each(walkthroughs.map(({ file, blocks }) => [file, blocks] as const))("%s", (file, blocks) => {
    const port = new URL(server.baseUrl).port;
    const run = spawnSync("bash", ["-c", scriptFor(blocks)], {
      cwd: terminal,
      // A reader's shell: none of this process's test settings.
      env: { PATH: process.env.PATH, HOME: process.env.HOME, PORT: port } as unknown as NodeJS.ProcessEnv,
      encoding: "utf8",
      // A ceiling, not an expectation: the multi-step guide's ~40 requests took 40 s alone and
      // 120 s beside three other suites on a loaded 2-core machine.
      timeout: 420_000,
    });
    const problems = checkOutput(blocks, run.stdout);
    expect(problems, `${file}\n--- stdout\n${run.stdout}\n--- stderr\n${run.stderr}`).toEqual([]);
    expect(run.status, `${file}: the shell exited with ${run.status}\n${run.stderr}`).toBe(0);
  }, 480_000);
});
