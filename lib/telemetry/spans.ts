import { type Attributes, type Span, SpanKind, SpanStatusCode, context, propagation, trace } from "@opentelemetry/api";

export const tracer = () => trace.getTracer("idemgate");

/** Runs `work` inside a span that ends with it; an exception marks the span as an error. */
export async function withSpan<T>(
  name: string,
  attributes: Attributes,
  work: (span: Span) => Promise<T>,
  kind: SpanKind = SpanKind.INTERNAL,
): Promise<T> {
  return tracer().startActiveSpan(name, { kind, attributes }, async (span) => {
    try {
      return await work(span);
    } catch (error) {
      span.recordException(error as Error);
      span.setStatus({ code: SpanStatusCode.ERROR, message: (error as Error).message });
      throw error;
    } finally {
      span.end();
    }
  });
}

/** Continue the caller's W3C trace (`traceparent`/`tracestate`) for the duration of `work`. */
export function withIncomingTrace<T>(headers: { get(name: string): string | null }, work: () => Promise<T>): Promise<T> {
  const traceparent = headers.get("traceparent");
  if (!traceparent) return work();
  const carrier: Record<string, string> = { traceparent };
  for (const key of ["tracestate", "baggage"]) {
    const value = headers.get(key);
    if (value !== null) carrier[key] = value;
  }
  return context.with(propagation.extract(context.active(), carrier), work);
}

/** Write the active trace context as headers for an outgoing request (the SDK uses this). */
export function outgoingTraceHeaders(): Record<string, string> {
  const carrier: Record<string, string> = {};
  propagation.inject(context.active(), carrier);
  return carrier;
}
