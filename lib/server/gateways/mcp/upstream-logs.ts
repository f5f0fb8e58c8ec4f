/**
 * MCP log messages (notifications/message) an upstream sends while a tool runs, relayed to the
 * client that asked for them. Serving is stateless per request, so a call only relays what arrives
 * during it, on its own response stream: a client's level comes from its session row (session-era
 * `logging/setLevel`) or from the request's envelope (2026-07-28), never from process memory.
 */

/** RFC 5424 severities, lowest first, as MCP names them. */
export const LOG_LEVELS = ["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** The 2026-07-28 envelope key carrying a request's log threshold. */
export const LOG_LEVEL_META_KEY = "io.modelcontextprotocol/logLevel";

export interface LogMessage {
  level: string;
  data?: unknown;
  logger?: string;
}

/** What a call relays: messages at or above `level`, passed to `send`. */
export interface LogRelay {
  level: LogLevel;
  send: (message: LogMessage) => void;
}

export function asLogLevel(value: unknown): LogLevel | null {
  return typeof value === "string" && (LOG_LEVELS as readonly string[]).includes(value) ? (value as LogLevel) : null;
}

/** True when a message of `level` is at or above the client's threshold (unknown levels are dropped). */
export function passesThreshold(level: string, threshold: LogLevel): boolean {
  const rank = (LOG_LEVELS as readonly string[]).indexOf(level);
  return rank >= 0 && rank >= LOG_LEVELS.indexOf(threshold);
}
