import { type Attributes, type Span, SpanKind, context, metrics, propagation } from "@opentelemetry/api";
import { tracer } from "./spans";

/**
 * Telemetry of the MCP gateway per the OTel MCP and GenAI conventions: a SERVER span
 * `tools/call {tool}` per call (parented to the client's `_meta.traceparent`), a CLIENT span of
 * the same name around the upstream request (whose context travels on in the upstream's `_meta`),
 * and their durations in seconds.
 */
const DURATION_BUCKETS_S = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300];

function histograms() {
  const meter = metrics.getMeter("idemgate");
  return {
    server: meter.createHistogram("mcp.server.operation.duration", { unit: "s", description: "MCP request duration as seen by the gateway", advice: { explicitBucketBoundaries: DURATION_BUCKETS_S } }),
    client: meter.createHistogram("mcp.client.operation.duration", { unit: "s", description: "Upstream MCP request duration as seen by the gateway", advice: { explicitBucketBoundaries: DURATION_BUCKETS_S } }),
    tool: meter.createHistogram("gen_ai.execute_tool.duration", { unit: "s", description: "Duration of an upstream tool's execution", advice: { explicitBucketBoundaries: DURATION_BUCKETS_S } }),
  };
}

export interface McpServerCall {
  tool: string;
  gateTool: string;
  sessionId: string | null;
  upstream: string;
  meta: Record<string, unknown> | undefined;
}

/** One span of the gateway's: an exception marks it (`error.type`); `record` gets its seconds. */
function spanned<T>(name: string, kind: SpanKind, attributes: Attributes, record: (seconds: number, errorType: string | undefined) => void, work: (span: Span) => Promise<T>): Promise<T> {
  const started = performance.now();
  return tracer().startActiveSpan(name, { kind, attributes }, async (span) => {
    let errorType: string | undefined;
    try {
      return await work(span);
    } catch (error) {
      errorType = (error as Error).name || "Error";
      span.recordException(error as Error);
      span.setAttribute("error.type", errorType);
      throw error;
    } finally {
      span.end();
      record((performance.now() - started) / 1000, errorType);
    }
  });
}

const metricAttributes = (tool: string, errorType: string | undefined) => ({ "mcp.method.name": "tools/call", "gen_ai.tool.name": tool, ...(errorType ? { "error.type": errorType } : {}) });

/** The server span of one tools/call; `work` names the decision on it once it is known. */
export function withMcpServerSpan<T>(call: McpServerCall, work: (span: Span) => Promise<T>): Promise<T> {
  const carrier: Record<string, string> = {};
  for (const key of ["traceparent", "tracestate"] as const) {
    const value = call.meta?.[key];
    if (typeof value === "string") carrier[key] = value;
  }
  const parent = carrier.traceparent ? propagation.extract(context.active(), carrier) : context.active();
  const attributes: Attributes = {
    "mcp.method.name": "tools/call",
    "gen_ai.operation.name": "execute_tool",
    "gen_ai.tool.name": call.tool,
    "idemgate.upstream": call.upstream,
    "idemgate.tool": call.gateTool,
    ...(call.sessionId ? { "mcp.session.id": call.sessionId } : {}),
  };
  const record = (seconds: number, errorType: string | undefined) => histograms().server.record(seconds, metricAttributes(call.tool, errorType));
  return context.with(parent, () => spanned(`tools/call ${call.tool}`, SpanKind.SERVER, attributes, record, work));
}

/** The client span around the upstream's tools/call; `work` gets the `_meta` carrying its context. */
export function withUpstreamCallSpan<T>(tool: string, upstream: string, work: (traceMeta: Record<string, string>) => Promise<T>): Promise<T> {
  const attributes = { "mcp.method.name": "tools/call", "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": tool, "idemgate.upstream": upstream };
  const record = (seconds: number, errorType: string | undefined) => {
    const { client, tool: execute } = histograms();
    client.record(seconds, metricAttributes(tool, errorType));
    execute.record(seconds, metricAttributes(tool, errorType));
  };
  return spanned(`tools/call ${tool}`, SpanKind.CLIENT, attributes, record, () => {
    const traceMeta: Record<string, string> = {};
    propagation.inject(context.active(), traceMeta);
    return work(traceMeta);
  });
}
