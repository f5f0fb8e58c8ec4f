// `node:fs` plus `globSync` (Node >= 22) for @modelcontextprotocol/conformance on Node 20, backed
// by tinyglobby (already installed). Only the conformance package is pointed here (hooks.mjs).
import fs from "node:fs";
import { globSync as tinyGlobSync } from "tinyglobby";

export * from "node:fs";
export default fs;

export function globSync(pattern, options = {}) {
  return tinyGlobSync(pattern, { cwd: options.cwd, onlyFiles: false, expandDirectories: false });
}
