// GET /api/metrics — Prometheus scrapers holding IDEMGATE_METRICS_TOKEN: the gate's metrics.
import { timingSafeEqual } from "node:crypto";
import { PrometheusSerializer } from "@opentelemetry/exporter-prometheus";
import { env } from "@/lib/env";
import { prometheusReader } from "@/lib/telemetry/setup";

const serializer = new PrometheusSerializer();

function authorized(req: Request, token: string | undefined): boolean {
  const sent = /^Bearer\s+(\S+)$/i.exec(req.headers.get("authorization") ?? "")?.[1];
  if (!token || !sent) return false;
  const a = Buffer.from(sent);
  const b = Buffer.from(token);
  return a.length === b.length && timingSafeEqual(a, b);
}

export async function GET(req: Request): Promise<Response> {
  if (!authorized(req, env().IDEMGATE_METRICS_TOKEN)) {
    return Response.json(
      { error: { code: "unauthorized", message: "send `Authorization: Bearer $IDEMGATE_METRICS_TOKEN`", retryable: false } },
      { status: 401 },
    );
  }
  const reader = prometheusReader();
  if (!reader) return new Response("# telemetry not initialised\n", { status: 503 });
  const { resourceMetrics } = await reader.collect();
  return new Response(serializer.serialize(resourceMetrics), {
    headers: { "content-type": "text/plain; version=0.0.4; charset=utf-8", "cache-control": "no-store" },
  });
}
