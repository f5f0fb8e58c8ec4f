import { SpanKind, SpanStatusCode, context, propagation, trace } from "@opentelemetry/api";
import type { BeginRequest, CallResult } from "./types";

const tracer = () => trace.getTracer("idemgate-sdk");

/**
 * The tool call as a GenAI `execute_tool {tool}` span (INTERNAL). The gate's own spans become its
 * children through the `traceparent` the HTTP transport sends. With no OpenTelemetry SDK
 * registered by the host application, all of this is a no-op.
 */
export function withToolSpan<T>(request: BeginRequest, work: () => Promise<CallResult<T>>): Promise<CallResult<T>> {
  return tracer().startActiveSpan(
    `execute_tool ${request.tool}`,
    {
      kind: SpanKind.INTERNAL,
      attributes: {
        "gen_ai.operation.name": "execute_tool",
        "gen_ai.tool.name": request.tool,
        ...(request.toolCallId ? { "gen_ai.tool.call.id": request.toolCallId } : {}),
        "idemgate.run_id": request.runId,
        ...(request.agentId ? { "idemgate.agent_id": request.agentId } : {}),
      },
    },
    async (span) => {
      try {
        const result = await work();
        span.setAttribute("idemgate.result", result.status);
        if ("key" in result && typeof result.key === "string") span.setAttribute("idemgate.key", result.key);
        if (!result.ok) span.setStatus({ code: SpanStatusCode.ERROR, message: result.status });
        return result;
      } catch (error) {
        span.recordException(error as Error);
        span.setStatus({ code: SpanStatusCode.ERROR, message: (error as Error).message });
        throw error;
      } finally {
        span.end();
      }
    },
  );
}

/** W3C trace headers for the active context (empty when nothing is being traced). */
export function traceHeaders(): Record<string, string> {
  const carrier: Record<string, string> = {};
  propagation.inject(context.active(), carrier);
  return carrier;
}
