// The README's first screen, as a new user meets it: clone the repository into an empty directory,
// `npm install && npm start` on a port other than 3000, then the README's walk-through typed into a
// shell against that server, each answer checked against the one the README shows. The start's
// output goes to a file, as a service manager would keep it, and must read clean: no warning or
// error lines, no colour codes.
//
//   node test/fresh-clone.mjs [--repo <path or URL>] [--port 3147] [--npm-test] [--keep]
//
// --repo     what to clone (default: this checkout's repository; its committed HEAD is cloned)
// --port     the port (default 3147)
// --npm-test also run `npm test` in the clone, the README's second command (long: the whole suite)
// --keep     leave the clone behind (its path is printed)
//
// Not part of `npm test`: a clean install and a first build take 3–10 minutes on a 2-core machine.
import { spawn, spawnSync } from "node:child_process";
import { closeSync, existsSync, mkdtempSync, openSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { checkOutput, scriptFor, shellBlocks } from "./helpers/doc-walkthroughs.mjs";

const args = process.argv.slice(2);
const option = (name, fallback) => {
  const at = args.indexOf(name);
  return at === -1 ? fallback : args[at + 1];
};
const here = path.resolve(import.meta.dirname, "..");
const repo = option("--repo", here);
const port = Number(option("--port", "3147"));
if (port === 3000) throw new Error("--port: use a port other than 3000, the point is that the README does not assume it");

const work = mkdtempSync(path.join(os.tmpdir(), "idemgate-fresh-"));
const clone = path.join(work, "idemgate");
const startLog = path.join(work, "start.log");
const started = Date.now();
const elapsed = () => `${Math.round((Date.now() - started) / 1000)} s`;
const say = (line) => console.log(`[fresh-clone ${elapsed()}] ${line}`);

function sh(command, commandArgs, options = {}) {
  say(`$ ${command} ${commandArgs.join(" ")}`);
  const result = spawnSync(command, commandArgs, { stdio: "inherit", ...options });
  if (result.status !== 0) throw new Error(`${command} ${commandArgs.join(" ")} exited with ${result.status}`);
}

/** A reader's environment: nothing of this process's own test settings. */
const readerEnv = { PATH: process.env.PATH, HOME: process.env.HOME, LANG: process.env.LANG ?? "C.UTF-8", PORT: String(port) };

const failures = [];
let server;
try {
  sh("git", ["clone", "--quiet", repo, clone]);
  sh("npm", ["install", "--no-audit", "--no-fund"], { cwd: clone, env: readerEnv });

  // `npm start`, its output to a file (not a terminal).
  say(`$ npm start   (PORT=${port}, output in ${startLog})`);
  const out = openSync(startLog, "w");
  server = spawn("npm", ["start"], { cwd: clone, env: readerEnv, stdio: ["ignore", out, out], detached: true });
  closeSync(out);
  const exited = new Promise((resolve) => server.once("exit", resolve));
  const deadline = Date.now() + 20 * 60_000;
  const serving = () => readFileSync(startLog, "utf8").includes("[idemgate] serving on");
  while (!(serving() && existsSync(path.join(clone, "data/demo-key.txt")))) {
    if (server.exitCode !== null) throw new Error(`npm start exited with ${server.exitCode}:\n${readFileSync(startLog, "utf8")}`);
    if (Date.now() > deadline) throw new Error("npm start did not serve within 20 minutes");
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
  say("serving");

  // The walk-through, as the README shows it.
  const blocks = shellBlocks(readFileSync(path.join(clone, "README.md"), "utf8"));
  const walk = spawnSync("bash", ["-c", scriptFor(blocks)], { cwd: clone, env: readerEnv, encoding: "utf8", timeout: 420_000 });
  console.log(walk.stdout);
  if (walk.stderr) console.error(walk.stderr);
  failures.push(...checkOutput(blocks, walk.stdout));
  if (walk.status !== 0) failures.push(`the walk-through's shell exited with ${walk.status}`);

  // What the first start printed.
  const log = readFileSync(startLog, "utf8");
  if (/\x1b\[/.test(log)) failures.push("the start's log (a file) carries colour codes");
  for (const line of log.split("\n")) {
    if (/warn|error|⨯|deprecat|not set|may not work/i.test(line)) failures.push(`the start printed: ${line}`);
  }

  process.kill(-server.pid, "SIGTERM"); // npm, scripts/start.mjs and the server: one process group
  await exited;
  server = undefined;

  if (args.includes("--npm-test")) sh("npm", ["test"], { cwd: clone, env: { ...readerEnv, PORT: undefined } });
} catch (error) {
  failures.push(String(error instanceof Error ? error.message : error));
} finally {
  if (server) {
    try {
      process.kill(-server.pid, "SIGTERM");
    } catch {}
  }
  console.log(`\n--- the first start's output (${startLog})\n${existsSync(startLog) ? readFileSync(startLog, "utf8") : "(none)"}`);
  if (args.includes("--keep")) say(`kept ${work}`);
  else rmSync(work, { recursive: true, force: true });
}
if (failures.length > 0) {
  console.error(`\nfresh clone: ${failures.length} problem(s)\n${failures.map((line) => `- ${line}`).join("\n")}`);
  process.exit(1);
}
say("fresh clone: the README's first screen works as written");
