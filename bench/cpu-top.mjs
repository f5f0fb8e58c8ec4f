// node bench/cpu-top.mjs <file.cpuprofile> [n]: the top self-time frames of a V8 CPU profile
// (node --cpu-prof), as share of all samples, with file:line, and the top files by self time.
import { readFileSync } from "node:fs";

const profile = JSON.parse(readFileSync(process.argv[2], "utf8"));
const n = Number(process.argv[3] ?? 30);
const self = new Map();
const byId = new Map(profile.nodes.map((node) => [node.id, node]));
const counts = new Map();
for (const id of profile.samples) counts.set(id, (counts.get(id) ?? 0) + 1);
let total = 0;
const files = new Map();
for (const [id, count] of counts) {
  const { callFrame } = byId.get(id);
  const url = callFrame.url.replace(/^file:\/\//, "").replace(process.cwd() + "/", "");
  const name = `${callFrame.functionName || "(anonymous)"} ${url}:${callFrame.lineNumber + 1}`;
  self.set(name, (self.get(name) ?? 0) + count);
  const file = url || callFrame.functionName;
  files.set(file, (files.get(file) ?? 0) + count);
  total += count;
}
const top = (map) => [...map].sort((a, b) => b[1] - a[1]).slice(0, n).map(([k, v]) => `${((100 * v) / total).toFixed(1).padStart(5)}%  ${k}`).join("\n");
console.log(`${total} samples\n-- frames by self time --\n${top(self)}\n-- files by self time --\n${top(files)}`);

// Inclusive time of the project's own frames (a function's samples with everything it called), once per sample.
const parent = new Map();
for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
const inclusive = new Map();
for (const [id, count] of counts) {
  const seen = new Set();
  for (let at = id; at !== undefined; at = parent.get(at)) {
    const { callFrame } = byId.get(at);
    const url = callFrame.url.replace(/^file:\/\//, "").replace(process.cwd() + "/", "");
    if (!url.startsWith("lib/") && !url.startsWith("node_modules/better-sqlite3")) continue;
    const name = `${callFrame.functionName || "(anonymous)"} ${url}`;
    if (seen.has(name)) continue;
    seen.add(name);
    inclusive.set(name, (inclusive.get(name) ?? 0) + count);
  }
}
console.log(`-- project frames by inclusive time --\n${top(inclusive)}`);
