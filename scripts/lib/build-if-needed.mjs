// Builds the Next.js app unless .next already holds a build of exactly these sources.
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, readFileSync, readdirSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";

const INPUTS = ["app", "components", "lib", "instrumentation.ts", "next.config.mjs", "package-lock.json", "tsconfig.json"];
const STAMP = ".next/idemgate-source-hash";

function* files(entry) {
  if (!existsSync(entry)) return;
  if (statSync(entry).isDirectory()) {
    for (const name of readdirSync(entry).sort()) {
      if (name === "generated" || name === "node_modules") continue;
      yield* files(path.join(entry, name));
    }
  } else {
    yield entry;
  }
}

export function sourceHash() {
  const hash = createHash("sha256");
  for (const input of INPUTS) for (const file of files(input)) hash.update(file).update(readFileSync(file));
  return hash.digest("hex");
}

const upToDate = (hash) => existsSync(".next/BUILD_ID") && existsSync(STAMP) && readFileSync(STAMP, "utf8") === hash;

/** `typecheck: false` where tsc has already checked the tree (npm test does, first). */
export function buildIfNeeded({ typecheck = false } = {}) {
  const hash = sourceHash();
  if (upToDate(hash)) return false;
  // Another process may be building the same sources (parallel test runs): wait for it, then
  // build only if its result is not what we need.
  for (let tries = 0; tries < 120; tries++) {
    console.log("[idemgate] building the app (next build) …");
    const result = spawnSync(process.execPath, ["node_modules/next/dist/bin/next", "build"], {
      encoding: "utf8",
      // NODE_ENV production whoever builds (vitest sets "test"): next.config.mjs keys its CSP on it.
      env: { ...process.env, NODE_ENV: "production", NEXT_TELEMETRY_DISABLED: "1", ...(typecheck ? {} : { IDEMGATE_BUILD_SKIP_TYPECHECK: "1" }) },
    });
    process.stdout.write(result.stdout ?? "");
    process.stderr.write(result.stderr ?? "");
    if (result.status === 0) {
      writeFileSync(STAMP, hash);
      return true;
    }
    if (!`${result.stdout}${result.stderr}`.includes("Another next build process is already running")) {
      process.exit(result.status ?? 1);
    }
    spawnSync("sleep", ["5"]);
    if (upToDate(hash)) return false;
  }
  process.exit(1);
}
