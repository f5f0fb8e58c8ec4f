import type { AlertCondition, AlertSignal, OpenIncidentChannel } from "../../core/alerts";
import type { AuditEntryRow } from "./operator-store";

export interface AlertChannelRow {
  id: string;
  projectId: string;
  name: string;
  kind: "slack" | "pagerduty" | "webhook";
  /** What the UI may show: `scheme://host (fingerprint …)`, never a path or a token (older rows: `host/path`, shown without the path). */
  target: string;
  /** Sealed JSON { url, routingKey?, signingSecret? }. */
  secretEnc: string;
  createdAt: number;
  createdBy: string | null;
}

export interface AlertRuleRow {
  id: string;
  projectId: string;
  condition: AlertCondition;
  tool: string | null;
  minutes: number | null;
  channelIds: string[];
  createdAt: number;
  createdBy: string | null;
}

export type DeliveryStatus = "pending" | "delivered" | "failed";

export interface AlertDeliveryRow {
  id: string;
  projectId: string;
  signalId: string;
  channelId: string;
  ruleId: string | null;
  condition: string;
  action: "trigger" | "resolve";
  dedupKey: string;
  /** JSON of the Alert, frozen when the row was written: every attempt sends the same. */
  alert: string;
  status: DeliveryStatus;
  attempts: number;
  nextAttemptAt: number;
  leaseOwner: string | null;
  leaseUntil: number | null;
  lastCode: number | null;
  lastError: string | null;
  createdAt: number;
  deliveredAt: number | null;
}

export interface AlertAttemptRow {
  id: string;
  deliveryId: string;
  projectId: string;
  at: number;
  outcome: "delivered" | "retry" | "failed";
  statusCode: number | null;
  error: string | null;
}

/** The end of one attempt: the delivery's new state, and the log line. */
export interface AttemptResult {
  status: DeliveryStatus;
  attempts: number;
  nextAttemptAt: number;
  lastCode: number | null;
  lastError: string | null;
  deliveredAt: number | null;
  log: AlertAttemptRow;
  /** A grouped webhook's other members (parked under the delivery): each gets the same result and a log line of its own. */
  followers?: AlertAttemptRow[];
}

/** A call told to verify, still unanswered. */
export interface WaitingVerify {
  callId: string;
  tool: string;
  runId: string;
  attempt: number;
  at: number;
}

export interface WaitingResend {
  id: string;
  callId: string;
  tool: string;
  createdAt: number;
}

/** Alert channels, rules, the outbox and its deliveries. */
export interface AlertStore {
  listChannels(projectId: string): Promise<AlertChannelRow[]>;
  findChannel(projectId: string, id: string): Promise<AlertChannelRow | null>;
  addChannel(row: AlertChannelRow, audit: AuditEntryRow): Promise<void>;
  /** The removed channel (its rules stop naming it), or null. */
  removeChannel(projectId: string, id: string, audit: AuditEntryRow): Promise<AlertChannelRow | null>;
  listRules(projectId: string): Promise<AlertRuleRow[]>;
  addRule(row: AlertRuleRow, audit: AuditEntryRow): Promise<void>;
  removeRule(projectId: string, id: string, audit: AuditEntryRow): Promise<AlertRuleRow | null>;
  /** Projects with a timed rule (verify_unresolved, approval_pending). */
  projectsWithTimedRules(): Promise<string[]>;

  /** False when a signal with this id exists (a timed scan found the same thing again). */
  insertSignal(signal: AlertSignal): Promise<boolean>;
  unprocessedSignals(limit: number): Promise<AlertSignal[]>;
  /** In one transaction: the signal's deliveries (one per channel, whoever writes first) and its processed stamp. */
  fanOut(signalId: string, deliveries: AlertDeliveryRow[], now: number): Promise<void>;
  /** Test alerts: one delivery, written directly. */
  /** A delivery (a test alert's) with the audit entry of the operator who asked for it, in one transaction. */
  insertDelivery(delivery: AlertDeliveryRow, audit?: AuditEntryRow): Promise<void>;

  /** Deliveries due now whose lease, if any, has run out (oldest due first), with their channel. */
  dueDeliveries(now: number, limit: number): Promise<{ id: string; projectId: string; channelId: string }[]>;
  /**
   * A channel's deliveries that may go out together now (oldest first): unleased (or the lease ran
   * out) and due, or not yet tried (still in their group wait).
   */
  groupable(channelId: string, now: number, limit: number): Promise<string[]>;
  /**
   * Takes the delivery's lease when it is still due (or, with `untried`, not yet tried) and unleased
   * (or its lease ran out); null when another worker has it.
   */
  claim(id: string, owner: string, now: number, leaseMs: number, untried?: boolean): Promise<AlertDeliveryRow | null>;
  /**
   * Parks these untried, unleased deliveries under `leaderId` (a grouped webhook request): they go
   * out only with it, and settle with it. A leader that already has followers keeps exactly those
   * (a retry or a redelivery after a crash sends the same group under the same webhook-id). Answers
   * the followers, oldest first. Only deliveries written by `upTo` (the end of the leader's group
   * wait) join: a leader sent again after a crash cannot take in alerts that fired since.
   */
  parkFollowers(leaderId: string, ids: string[], upTo: number, now: number): Promise<AlertDeliveryRow[]>;
  /** Records an attempt and releases the lease, only while `owner` still holds it. */
  finishAttempt(id: string, owner: string, result: AttemptResult): Promise<boolean>;

  listDeliveries(projectId: string, limit: number): Promise<AlertDeliveryRow[]>;
  listAttempts(projectId: string, deliveryIds: string[]): Promise<AlertAttemptRow[]>;

  /** Deletes processed signals, settled deliveries and log lines older than `before`; answers the rows deleted. */
  purge(before: number): Promise<number>;

  waitingVerifies(projectId: string, olderThan: number, since: number): Promise<WaitingVerify[]>;
  /**
   * Signals of these conditions that were sent as triggers to some channel and have no resolve yet
   * (oldest first): the incidents the dispatcher checks for closing.
   */
  openIncidents(conditions: readonly AlertCondition[], limit: number): Promise<AlertSignal[]>;
  /**
   * Channels whose latest delivery under this dedup_key (failed ones aside: that channel was never
   * told) is a trigger: the incident is open there.
   */
  openIncidentChannels(projectId: string, dedupKey: string): Promise<OpenIncidentChannel[]>;
  /** A channel's delivery under this dedup_key not yet tried nor taken by a worker (a trigger in its group wait, an update waiting), if any. */
  untriedFor(channelId: string, dedupKey: string): Promise<AlertDeliveryRow | null>;
  /** Replaces an untried delivery's alert with a newer one of the same incident; false once a worker has taken it. */
  rewriteUntried(id: string, alert: string): Promise<boolean>;
  /** The run's event signals since `since` (an incident's count is worked out from them). */
  runSignals(projectId: string, runId: string, since: number): Promise<AlertSignal[]>;
  /** When the last resolve of this dedup_key was written (0: never): an incident's signals are those after it. */
  lastResolvedAt(projectId: string, dedupKey: string): Promise<number>;
  /** Whether what raised a closable signal still holds (see CLOSABLE_CONDITIONS in lib/core/alerts). */
  incidentHolds(signal: AlertSignal, condition: AlertCondition): Promise<boolean>;
  waitingResends(projectId: string, olderThan: number): Promise<WaitingResend[]>;
}
