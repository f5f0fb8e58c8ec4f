import type { Alert } from "../../core/alerts";
import type { AlertDeliveryRow } from "../../store/ports/alert-store";
import { newId } from "../ids";

/** A new delivery of `alert` to one channel, due now; its id is the webhook-id of every attempt. */
export function pendingDelivery(projectId: string, alert: Alert, channelId: string, ruleId: string | null, now: number, id: string = newId("alr", now)): AlertDeliveryRow {
  return {
    id,
    projectId,
    signalId: alert.id,
    channelId,
    ruleId,
    condition: alert.test ? "test" : alert.condition,
    action: alert.action,
    dedupKey: alert.dedupKey,
    alert: JSON.stringify(alert),
    status: "pending",
    attempts: 0,
    nextAttemptAt: now,
    leaseOwner: null,
    leaseUntil: null,
    lastCode: null,
    lastError: null,
    createdAt: now,
    deliveredAt: null,
  };
}
