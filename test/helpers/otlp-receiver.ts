import http from "node:http";
import type { AddressInfo } from "node:net";

export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  kind: number;
  attributes: Record<string, string | number | boolean>;
  events: { name: string; attributes: Record<string, string | number | boolean> }[];
}

type OtlpValue = { stringValue?: string; intValue?: string | number; boolValue?: boolean; doubleValue?: number };
type OtlpAttribute = { key: string; value: OtlpValue };

function flatten(attributes: OtlpAttribute[] = []): Record<string, string | number | boolean> {
  const out: Record<string, string | number | boolean> = {};
  for (const { key, value } of attributes) {
    if (value.stringValue !== undefined) out[key] = value.stringValue;
    else if (value.intValue !== undefined) out[key] = Number(value.intValue);
    else if (value.boolValue !== undefined) out[key] = value.boolValue;
    else if (value.doubleValue !== undefined) out[key] = value.doubleValue;
  }
  return out;
}

/**
 * A real OTLP/HTTP (JSON) endpoint for tests: the server under test exports its spans here over
 * the network exactly as it would to a collector.
 */
export async function startOtlpReceiver() {
  const spans: ReceivedSpan[] = [];
  const server = http.createServer((req, res) => {
    let body = "";
    req.on("data", (chunk) => (body += chunk));
    req.on("end", () => {
      if (req.url === "/v1/traces" && req.headers["content-type"]?.includes("json")) {
        const payload = JSON.parse(body);
        for (const resourceSpans of payload.resourceSpans ?? []) {
          for (const scopeSpans of resourceSpans.scopeSpans ?? []) {
            for (const span of scopeSpans.spans ?? []) {
              spans.push({
                traceId: span.traceId,
                spanId: span.spanId,
                parentSpanId: span.parentSpanId ?? "",
                name: span.name,
                kind: span.kind,
                attributes: flatten(span.attributes),
                events: (span.events ?? []).map((e: { name: string; attributes?: OtlpAttribute[] }) => ({
                  name: e.name,
                  attributes: flatten(e.attributes),
                })),
              });
            }
          }
        }
      }
      res.writeHead(200, { "content-type": "application/json" });
      res.end("{}");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    spans,
    async waitFor(predicate: (span: ReceivedSpan) => boolean, timeoutMs = 60_000): Promise<ReceivedSpan[]> {
      const deadline = Date.now() + timeoutMs;
      while (Date.now() < deadline) {
        const found = spans.filter(predicate);
        if (found.length > 0) return found;
        await new Promise((r) => setTimeout(r, 100));
      }
      throw new Error(`no matching span within ${timeoutMs} ms; got: ${spans.map((s) => s.name).join(", ")}`);
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
