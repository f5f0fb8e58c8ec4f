#!/usr/bin/env node
// node scripts/conformance/run.mjs <conformance args…>: the official MCP conformance suite
// (@modelcontextprotocol/conformance) on Node 20. It imports `globSync` from `node:fs`, which
// Node 20 lacks; a resolve hook hands that one package a `node:fs` with a tinyglobby globSync.
import { spawnSync } from "node:child_process";
import { createRequire } from "node:module";
import path from "node:path";

const require = createRequire(import.meta.url);
const bin = path.join(path.dirname(require.resolve("@modelcontextprotocol/conformance/package.json")), "dist", "index.js");
const register = new URL("./register.mjs", import.meta.url).href;
const run = spawnSync(process.execPath, ["--import", register, bin, ...process.argv.slice(2)], { stdio: "inherit" });
process.exit(run.status ?? 1);
