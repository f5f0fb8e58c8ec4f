// GET /api/livez — anyone (load balancers, the benchmark): the process is up and serving requests.
// Deliberately touches neither the database nor auth: a liveness probe must not fail because
// Postgres is slow (that would get healthy instances killed), and the benchmark uses it as the
// framework's floor — the cost of a route handler request with nothing behind it.
export const dynamic = "force-dynamic";

export function GET(): Response {
  return Response.json({ ok: true }, { headers: { "cache-control": "no-store" } });
}
