// Runs once when a server process starts: telemetry first (so boot is traced), then migrate and
// seed before the first request.
export async function register(): Promise<void> {
  if (process.env.NEXT_RUNTIME !== "nodejs") return;
  const { env } = await import("./lib/env");
  const { setupTelemetry } = await import("./lib/telemetry/setup");
  const config = env();
  // Before the first request: every request's client address from the socket (client-address.ts).
  const { installClientAddress } = await import("./lib/http/client-address");
  installClientAddress(config.IDEMGATE_TRUSTED_PROXIES);
  setupTelemetry({
    serviceName: config.OTEL_SERVICE_NAME,
    tracesEndpoint: config.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ?? config.OTEL_EXPORTER_OTLP_ENDPOINT,
    metricsEndpoint: config.OTEL_EXPORTER_OTLP_METRICS_ENDPOINT ?? config.OTEL_EXPORTER_OTLP_ENDPOINT,
  });
  const { bootOrExit } = await import("./lib/server/boot");
  await bootOrExit();
  // The agent API without Next.js's router, for scripts/serve.mjs (npm start) to put in front.
  const { installAgentApi } = await import("./lib/http/agent-api");
  installAgentApi();
}
