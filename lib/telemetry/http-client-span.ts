import { SpanKind, SpanStatusCode } from "@opentelemetry/api";
import { outgoingTraceHeaders, tracer } from "./spans";

/**
 * An outbound HTTP request as an OTel HTTP client span (semantic conventions: span name is the
 * method, `http.request.method`, `url.full`, `server.address`, `server.port`,
 * `http.response.status_code`, `error.type`). It is a child of whatever span is active, the
 * gate's `execute_tool` span for gated calls, and `traceparent` carries it to the upstream.
 */
export function withHttpClientSpan(method: string, url: URL, send: (traceHeaders: Record<string, string>) => Promise<Response>): Promise<Response> {
  const port = url.port ? Number(url.port) : url.protocol === "https:" ? 443 : 80;
  const full = new URL(url);
  full.username = "";
  full.password = "";
  return tracer().startActiveSpan(
    method,
    {
      kind: SpanKind.CLIENT,
      attributes: { "http.request.method": method, "url.full": full.toString(), "server.address": url.hostname, "server.port": port },
    },
    async (span) => {
      try {
        const response = await send(outgoingTraceHeaders());
        span.setAttribute("http.response.status_code", response.status);
        if (response.status >= 500) {
          span.setAttribute("error.type", String(response.status));
          span.setStatus({ code: SpanStatusCode.ERROR });
        }
        return response;
      } catch (error) {
        const type = (error as { reason?: string; code?: string; name?: string }).reason ?? (error as { code?: string }).code ?? (error as Error).name;
        span.setAttribute("error.type", type ?? "_OTHER");
        span.recordException(error as Error);
        span.setStatus({ code: SpanStatusCode.ERROR, message: (error as Error).message });
        throw error;
      } finally {
        span.end();
      }
    },
  );
}
