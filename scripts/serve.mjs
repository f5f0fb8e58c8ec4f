// The production server (`npm start`, the tests, the benchmarks): one process, one port. The agent
// API (/api/v1/calls/…, /api/v1/resend-requests/…) and the MCP gateway (/mcp/{upstream}) are served
// by the lean path (lib/http/agent-api.ts, lib/http/mcp-lean.ts) without Next.js's router; everything else goes to Next.js's request
// handler, as `next start` would serve it. Options as `next start`: -p/--port (or PORT; 0 lets the
// system pick a free port, which the "serving on" line names), -H/--hostname (or HOSTNAME),
// --keepAliveTimeout <ms>.
import { readFileSync } from "node:fs";
import http from "node:http";
import path from "node:path";
import next from "next";
import { hostGuard, refusalBody } from "../lib/http/host-guard.mjs";

const root = path.resolve(import.meta.dirname, "..");

function option(args, names, fallback) {
  for (let i = 0; i < args.length; i++) {
    const [name, inline] = args[i].split("=", 2);
    if (names.includes(name)) return inline ?? args[i + 1];
  }
  return fallback;
}

/** `http://host:port` for a listening address; a wildcard (or no -H) is `localhost`. */
function listenUrl(host, port) {
  const name = !host || host === "0.0.0.0" || host === "::" ? "localhost" : host;
  return `http://${name.includes(":") ? `[${name}]` : name}:${port}`;
}

const args = process.argv.slice(2);
const port = Number(option(args, ["-p", "--port"], process.env.PORT ?? "3000"));
const hostname = option(args, ["-H", "--hostname"], process.env.HOSTNAME);
const keepAliveTimeout = option(args, ["--keepAliveTimeout"], undefined);

process.env.NODE_ENV = "production";
process.env.NEXT_TELEMETRY_DISABLED ??= "1";

/**
 * What Next.js writes on an App Router route's answer besides the route's own headers, so the lean
 * path's answers carry the same: the config's headers for every path ("/:path*"), as the build
 * recorded them in its routes manifest (what Next.js itself serves), then the Vary that Next.js
 * adds to every App Router response.
 */
function nextResponseHeaders() {
  const manifest = JSON.parse(readFileSync(path.join(root, ".next", "routes-manifest.json"), "utf8"));
  const rules = manifest.headers ?? [];
  const configured = rules.filter((rule) => rule.source === "/:path*").flatMap((rule) => rule.headers.map(({ key, value }) => [key, value]));
  return [...configured, ["vary", "rsc, next-router-state-tree, next-router-prefetch, next-router-segment-prefetch"]];
}

/**
 * The boot hook (instrumentation.ts, run by Next.js on its first request or soon after prepare)
 * migrates and seeds, then installs the lean path: until then Next.js serves every request (and
 * holds it until boot is done).
 * @returns {import("../lib/http/agent-api").AgentApi | undefined}
 */
const agentApi = () => globalThis.__idemgateAgentApi;

// The port is bound before Next.js is prepared, so that `-p 0` works: the system picks a free port
// and the line below names it (the tests start servers so; a port found free and then bound by this
// process could be taken by another in between). Next.js is told the port it really has. Requests
// that arrive before it is prepared wait for it.
/** @type {{ handle: (req: any, res: any) => unknown, upgrade: (req: any, socket: any, head: any) => unknown, commonHeaders: ReadonlyArray<readonly [string, string]>, hosts: ReturnType<typeof hostGuard>, origin: string } | null} */
let app = null;
let appReady;
const prepared = new Promise((resolve) => (appReady = resolve));

// Every request, every route (pages, sign-in, operator and agent APIs, gateways, upgrades), is first
// checked for a Host this server answers for (lib/http/host-guard.mjs: DNS rebinding).
function serveRequest({ handle, commonHeaders, hosts, origin }, req, res) {
  if (!hosts.allows(req.headers.host)) {
    req.resume();
    res.writeHead(403, { "content-type": "application/json", "cache-control": "no-store", connection: "close" });
    res.end(refusalBody(req.headers.host));
    return;
  }
  const lean = agentApi();
  const match = lean?.match(req.method, req.url);
  if (match) {
    lean.serve(match, req, res, commonHeaders, origin).catch((error) => {
      console.error("[idemgate] agent API: unexpected failure", error);
      if (!res.headersSent) res.writeHead(500, { "content-type": "application/json" });
      res.end(JSON.stringify({ error: { code: "internal", message: "internal error", retryable: true } }));
    });
  } else {
    if (req.url?.startsWith("/gw/")) restoreContentEncoding(res);
    handle(req, res);
  }
}

/**
 * Next.js drops Content-Encoding from a route handler's answer; `/gw` passes an upstream's
 * compressed bytes through as they are and names their encoding `idemgate-content-encoding`
 * (lib/server/gateways/http/http-gateway.ts), written back here as Content-Encoding on the way out.
 */
function restoreContentEncoding(res) {
  const writeHead = res.writeHead;
  res.writeHead = function (...args) {
    const encoding = res.getHeader("idemgate-content-encoding");
    if (encoding !== undefined) {
      res.removeHeader("idemgate-content-encoding");
      res.setHeader("content-encoding", encoding);
    }
    return writeHead.apply(this, args);
  };
}

const server = http.createServer((req, res) => {
  if (app) serveRequest(app, req, res);
  else prepared.then((ready) => serveRequest(ready, req, res));
});
function serveUpgrade(ready, req, socket, head) {
  if (ready.hosts.allows(req.headers.host)) return ready.upgrade(req, socket, head);
  const body = refusalBody(req.headers.host);
  socket.end(`HTTP/1.1 403 Forbidden\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`);
}
server.on("upgrade", (req, socket, head) => {
  if (app) serveUpgrade(app, req, socket, head);
  else prepared.then((ready) => serveUpgrade(ready, req, socket, head));
});
// Clients close their idle connections first (undici/fetch after 4 s or the server's hint less a
// margin, the SDK's transports likewise): a server that closes first races a client reusing the
// connection, and the client's request fails with a reset ("other side closed"), more often the
// busier the machine (its timers fire late). So the server waits longer than any of them, as load
// balancers do (65 s), and its header timeout is longer still (Node wants it above the keep-alive).
server.keepAliveTimeout = keepAliveTimeout ? Number(keepAliveTimeout) : 65_000;
server.headersTimeout = Math.max(server.headersTimeout, server.keepAliveTimeout + 1_000);
await new Promise((resolve, reject) => {
  server.once("error", reject);
  server.listen(port, hostname, resolve);
});
const boundPort = server.address().port;
// better-auth's base URL unless BETTER_AUTH_URL names the public one (lib/env.ts): the address
// this server listens on, as a URL a browser on this machine opens.
process.env.IDEMGATE_LISTEN_URL = listenUrl(hostname, boundPort);

const nextApp = next({ dev: false, dir: root, hostname: hostname ?? "localhost", port: boundPort });
await nextApp.prepare();
// After prepare: Next.js has loaded the .env files by then.
const hosts = hostGuard({
  listenHost: hostname,
  allowedHosts: process.env.IDEMGATE_ALLOWED_HOSTS,
  publicUrls: [process.env.BETTER_AUTH_URL, process.env.IDEMGATE_PUBLIC_URL],
});
// What Next.js puts before the path in a route handler's request URL (next-server's initURL): its own
// hostname and port, IPv6 in brackets; the lean path's requests get the same.
const nextHost = hostname ?? "localhost";
const origin = `${nextHost.includes(":") ? `[${nextHost}]` : nextHost}:${boundPort}`;
app = { handle: nextApp.getRequestHandler(), upgrade: nextApp.getUpgradeHandler(), commonHeaders: nextResponseHeaders(), hosts, origin };
appReady(app);
console.log(`[idemgate] serving on http://${hostname ?? "localhost"}:${boundPort} (answering for hosts: ${hosts.describe().join(", ")})`);

const DRAIN_GRACE_MS = 10_000;
const SHUTDOWN_BUDGET_MS = 30_000;
let closing = false;
for (const [signal, code] of [["SIGINT", 130], ["SIGTERM", 143]]) {
  process.on(signal, () => {
    if (closing) return;
    closing = true;
    // Stop taking connections, let the requests in flight finish, then flush and close the stores.
    // Long-lived streams (an MCP client's event stream) are cut after a grace period.
    let finished = false;
    let stage = "draining requests";
    const finish = async () => {
      if (finished) return;
      finished = true;
      stage = "closing the stores";
      await agentApi()?.close().catch((error) => console.error(error));
      stage = "closing Next.js";
      await nextApp.close().catch(() => undefined);
      process.exit(code);
    };
    setTimeout(() => {
      server.closeAllConnections();
      finish();
    }, DRAIN_GRACE_MS).unref();
    // A store that never closes (a pool waiting on a stuck query) must not keep a stopped server
    // alive: a supervisor's SIGTERM would hang, and its port and data dir stay taken.
    setTimeout(() => {
      console.error(`[idemgate] shutdown: still ${stage} after ${SHUTDOWN_BUDGET_MS / 1000} s; exiting`);
      process.exit(code);
    }, SHUTDOWN_BUDGET_MS).unref();
    server.close(finish);
  });
}
