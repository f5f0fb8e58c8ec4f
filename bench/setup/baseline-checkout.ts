import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, statSync } from "node:fs";
import os from "node:os";
import path from "node:path";

/** A checkout the baseline's cells are built from. */
export interface BaselineCheckout {
  dir: string;
  /** What the report calls it: the directory, or the ref and its commit. */
  name: string;
}

const git = (args: string[]) => execFileSync("git", args, { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] }).trim();

/**
 * `--baseline DIR|REF`. A directory is used as it is (another checkout the caller prepared). A git
 * ref becomes a detached worktree of that commit in the temp directory, readied the way bench/README.md
 * describes by hand: this checkout's node_modules hard-linked in (Turbopack will not build through a
 * symlinked node_modules; hard links cost no copy), its Prisma clients generated, and its production
 * build made (for the HTTP cells). The worktree is kept, one per commit, so the next run against the
 * same commit skips all of that (`git worktree remove --force <dir>` puts it away).
 */
export function prepareBaselineCheckout(spec: string, log: (message: string) => void): BaselineCheckout {
  if (existsSync(spec) && statSync(spec).isDirectory()) return { dir: path.resolve(spec), name: path.resolve(spec) };
  let commit: string;
  try {
    commit = git(["rev-parse", "--verify", "--quiet", `${spec}^{commit}`]);
  } catch {
    throw new Error(`--baseline ${spec}: neither a directory nor a git ref of this repository`);
  }
  const short = commit.slice(0, 12);
  const dir = path.join(os.tmpdir(), `idemgate-baseline-${short}`);
  const name = `${spec} (${short})`;
  if (!existsSync(path.join(dir, "package.json"))) {
    log(`baseline: checking out ${name} into ${dir}`);
    git(["worktree", "add", "--detach", "--force", dir, commit]);
  }
  const step = (label: string, command: string, args: string[], env: Record<string, string> = {}) => {
    log(`baseline: ${label}`);
    const result = spawnSync(command, args, { cwd: dir, stdio: ["ignore", "ignore", "inherit"], env: { ...process.env, ...env } });
    if (result.status !== 0) throw new Error(`--baseline ${spec}: ${label} failed (exit ${result.status}) in ${dir}`);
  };
  if (!existsSync(path.join(dir, "node_modules"))) step("hard-linking node_modules", "cp", ["-al", path.resolve("node_modules"), path.join(dir, "node_modules")]);
  if (!existsSync(path.join(dir, "lib", "store", "generated"))) step("generating its Prisma clients", process.execPath, ["scripts/prisma-generate.mjs"]);
  if (!existsSync(path.join(dir, ".next", "BUILD_ID"))) {
    step("building it (next build; a few minutes)", process.execPath, ["node_modules/next/dist/bin/next", "build"], {
      NODE_ENV: "production",
      NEXT_TELEMETRY_DISABLED: "1",
      IDEMGATE_BUILD_SKIP_TYPECHECK: "1",
    });
  }
  return { dir, name };
}
