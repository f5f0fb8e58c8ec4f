// npm start: build once if needed, then serve the dashboard and API (scripts/serve.mjs: the lean
// agent path in front of Next.js, one port).
// The server migrates and seeds its database itself on first start (instrumentation.ts).
import { spawn } from "node:child_process";
import { buildIfNeeded } from "./lib/build-if-needed.mjs";

process.env.NEXT_TELEMETRY_DISABLED = "1";
process.env.CHECKPOINT_DISABLE = "1";
buildIfNeeded({ typecheck: true });
const server = spawn(process.execPath, ["scripts/serve.mjs", ...process.argv.slice(2)], { stdio: "inherit" });
for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => server.kill(signal));
server.on("exit", (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
