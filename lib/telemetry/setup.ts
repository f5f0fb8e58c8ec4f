import { metrics } from "@opentelemetry/api";
import { OTLPMetricExporter } from "@opentelemetry/exporter-metrics-otlp-http";
import { PrometheusExporter } from "@opentelemetry/exporter-prometheus";
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { defaultResource, envDetector, detectResources, resourceFromAttributes } from "@opentelemetry/resources";
import { MeterProvider, PeriodicExportingMetricReader, type MetricReader } from "@opentelemetry/sdk-metrics";
import { BatchSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { NodeTracerProvider } from "@opentelemetry/sdk-trace-node";
import { processSlot } from "../process-wide";

export interface TelemetryConfig {
  /** OTEL_EXPORTER_OTLP_ENDPOINT or the traces-specific one: without it no spans leave the process. */
  tracesEndpoint: string | undefined;
  metricsEndpoint: string | undefined;
  serviceName: string;
}

const exporter = processSlot<PrometheusExporter>("prometheus");

/**
 * Node runtime only. Metrics always feed the Prometheus scrape route; OTLP export of spans and
 * metrics happens only when the standard OTEL_* variables say where to — none set, nothing is
 * exported and nothing fails. With an endpoint, the registered provider brings the W3C
 * propagator, so an agent's `traceparent` parents our spans.
 */
export function setupTelemetry(config: TelemetryConfig): void {
  if (exporter.get()) return;
  const resource = defaultResource()
    .merge(resourceFromAttributes({ "service.name": config.serviceName }))
    .merge(detectResources({ detectors: [envDetector] }));

  // Without an endpoint no tracer provider is registered at all: spans stay non-recording no-ops,
  // so begin and complete pay nothing for telemetry nobody collects.
  if (config.tracesEndpoint) {
    new NodeTracerProvider({
      resource,
      spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter(), { scheduledDelayMillis: 500 })],
    }).register();
  }

  const prometheus = new PrometheusExporter({ preventServerStart: true });
  const readers: MetricReader[] = [prometheus];
  if (config.metricsEndpoint) {
    readers.push(new PeriodicExportingMetricReader({ exporter: new OTLPMetricExporter(), exportIntervalMillis: 10_000 }));
  }
  metrics.setGlobalMeterProvider(new MeterProvider({ resource, readers }));
  exporter.set(prometheus);
}

export function prometheusReader(): PrometheusExporter | undefined {
  return exporter.get();
}
