import type { AlertChannelWire, AlertDeliveryWire, AlertRuleWire } from "../contract/alerts";
import type { Alert } from "../core/alerts";
import type { DeliveryWithLog } from "../server/alerts/alert-service";
import type { AlertChannelRow, AlertRuleRow } from "../store/ports/alert-store";

const iso = (ms: number) => new Date(ms).toISOString();

/** A channel as operators see it: never its URL's secret parts, routing key or signing secret. */
export function toWireAlertChannel(row: AlertChannelRow): AlertChannelWire {
  return { id: row.id, name: row.name, kind: row.kind, target: row.target, createdAt: iso(row.createdAt), createdBy: row.createdBy };
}

export function toWireAlertRule(row: AlertRuleRow): AlertRuleWire {
  return { id: row.id, condition: row.condition, tool: row.tool, minutes: row.minutes, channelIds: row.channelIds, createdAt: iso(row.createdAt), createdBy: row.createdBy };
}

export function toWireAlertDelivery({ delivery, log }: DeliveryWithLog): AlertDeliveryWire {
  return {
    id: delivery.id,
    channelId: delivery.channelId,
    condition: delivery.condition,
    action: delivery.action,
    dedupKey: delivery.dedupKey,
    title: (JSON.parse(delivery.alert) as Alert).title,
    status: delivery.status,
    attempts: delivery.attempts,
    nextAttemptAt: delivery.status === "pending" ? iso(delivery.nextAttemptAt) : null,
    lastCode: delivery.lastCode,
    lastError: delivery.lastError,
    createdAt: iso(delivery.createdAt),
    deliveredAt: delivery.deliveredAt === null ? null : iso(delivery.deliveredAt),
    log: log.map((attempt) => ({ at: iso(attempt.at), outcome: attempt.outcome, statusCode: attempt.statusCode, error: attempt.error })),
  };
}
