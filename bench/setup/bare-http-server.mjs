// The lean floor: a JSON route on plain node:http, no framework, in a process of its own (as
// `next start` is), so a lean serving path can be compared with what Node itself costs.
import http from "node:http";

const body = JSON.stringify({ ok: true });
const server = http.createServer((req, res) => {
  if (req.method === "GET" && req.url === "/livez") {
    res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(body) });
    res.end(body);
    return;
  }
  res.writeHead(404).end();
});
server.keepAliveTimeout = 60_000;
server.listen(0, "127.0.0.1", () => {
  process.stdout.write(`${JSON.stringify({ port: server.address().port })}\n`);
});
process.on("SIGTERM", () => server.close(() => process.exit(0)));
