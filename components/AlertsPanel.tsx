"use client";

import { type FormEvent, useState } from "react";
import { ActionsTable } from "./ActionsTable";
import { ConfirmAction } from "./ConfirmAction";
import { QueryListStates } from "./QueryListStates";
import { EmptyState, ErrorState } from "./StateViews";
import { TableWrap } from "./TableWrap";
import { type AlertChannelWire, type CreateAlertChannel, CreateAlertChannelSchema, CreateAlertRuleSchema } from "@/lib/contract/alerts";
import { ALERT_CONDITIONS, type AlertCondition, TIMED_CONDITIONS } from "@/lib/core/alerts";
import { validateForm } from "@/lib/dashboard/form-errors";
import { formatInstant } from "@/lib/dashboard/format-time";
import {
  useAddAlertChannelMutation,
  useAddAlertRuleMutation,
  useAlertDeliveriesQuery,
  useAlertsQuery,
  useRemoveAlertChannelMutation,
  useRemoveAlertRuleMutation,
  useTestAlertMutation,
} from "@/lib/dashboard/queries/use-alerts-query";

export const CONDITION_LABELS: Record<AlertCondition, string> = {
  storm_opened: "Retry storm opened",
  storm_closed: "Retry storm closed",
  dedup_rate: "Dedup rate above baseline",
  loop_blocked: "Loop blocked",
  budget_exceeded: "Run budget exceeded",
  lease_lost: "lease_lost (may have run twice)",
  verify_unresolved: "verify unresolved for N minutes",
  approval_pending: "Resend request pending for N minutes",
  compensation_failed: "Compensation failed",
};

const KIND_LABELS = { slack: "Slack", pagerduty: "PagerDuty", webhook: "Signed webhook" } as const;

/** Settings → Alerts (admin): channels (secrets write-only), rules, test alerts and the delivery log. */
export function AlertsPanel({ projectId }: { projectId: string }) {
  const alerts = useAlertsQuery(projectId);
  const channels = alerts.data?.channels ?? [];
  return (
    <section aria-labelledby="alerts-title" className="card stack" data-testid="alerts-panel">
      <h2 id="alerts-title" style={{ margin: 0, fontSize: "1.2em" }}>
        Alerts
      </h2>
      <p className="muted" style={{ margin: 0 }}>
        Send storms, loops, budget overruns, lease_lost and waiting work to Slack, PagerDuty or a signed webhook. URLs must be on the outbound allowlist; URLs, routing keys
        and signing secrets are stored encrypted and never shown again. Every alert is delivered from an outbox, retried with backoff, and logged below.
      </p>
      {alerts.data && alerts.data.publicUrl === null ? (
        <div className="card banner" role="alert" data-testid="alerts-no-public-url">
          <strong>Links in alerts will not work.</strong> This install has no public URL (<code>IDEMGATE_PUBLIC_URL</code>), so the “Open in Idemgate” links in
          Slack, PagerDuty and webhook alerts are relative and cannot be opened. Set it and restart; until then, adding a channel asks you to confirm.
        </div>
      ) : null}
      <ChannelsSection projectId={projectId} />
      <RulesSection projectId={projectId} channels={channels} />
      <DeliveryLog projectId={projectId} channels={channels} />
    </section>
  );
}

function ChannelsSection({ projectId }: { projectId: string }) {
  const alerts = useAlertsQuery(projectId);
  const remove = useRemoveAlertChannelMutation(projectId);
  const test = useTestAlertMutation(projectId);
  return (
    <div className="stack">
      <h3 style={{ margin: 0 }}>Channels</h3>
      <AddChannelForm projectId={projectId} deadLinks={alerts.data?.publicUrl === null} />
      <QueryListStates query={alerts} items={(data) => data.channels} loading="Loading channels…" empty={<EmptyState title="No channels yet">Add a Slack webhook, a PagerDuty routing key or a webhook URL.</EmptyState>}>
        {(list) => (
          <ActionsTable label="Alert channels" columns={["Name", "Kind", "Target", "Added"]}>
            {list.map((channel) => (
              <tr key={channel.id} data-testid="alert-channel-row">
                <td>{channel.name}</td>
                <td>{KIND_LABELS[channel.kind]}</td>
                <td>
                  <code>{channel.target}</code>
                </td>
                <td style={{ whiteSpace: "nowrap" }}>{formatInstant(channel.createdAt)}</td>
                <td className="row" style={{ flexWrap: "nowrap" }}>
                  <button type="button" onClick={() => test.mutate(channel.id)} disabled={test.isPending} aria-label={`Send test alert to ${channel.name}`}>
                    Send test alert
                  </button>
                  <ConfirmAction
                    label="Remove"
                    ariaLabel={`Remove ${channel.name}`}
                    question={`Remove ${channel.name}? Rules stop sending to it.`}
                    confirmLabel="Remove channel"
                    pending={remove.isPending && remove.variables === channel.id}
                    onConfirm={() => remove.mutate(channel.id)}
                  />
                </td>
              </tr>
            ))}
          </ActionsTable>
        )}
      </QueryListStates>
      {test.isSuccess ? (
        <p role="status" style={{ margin: 0 }}>
          Test alert queued: see the delivery log.
        </p>
      ) : null}
      {remove.error ? <ErrorState error={remove.error} /> : null}
      {test.error ? <ErrorState error={test.error} /> : null}
    </div>
  );
}

function AddChannelForm({ projectId, deadLinks }: { projectId: string; deadLinks: boolean }) {
  const add = useAddAlertChannelMutation(projectId);
  const [kind, setKind] = useState<CreateAlertChannel["kind"]>("slack");
  const [name, setName] = useState("");
  const [url, setUrl] = useState("");
  const [routingKey, setRoutingKey] = useState("");
  const [allowDeadLinks, setAllowDeadLinks] = useState(false);
  const [submitted, setSubmitted] = useState(false);
  const [secret, setSecret] = useState<{ name: string; value: string } | null>(null);
  const confirm = deadLinks && allowDeadLinks ? { allowDeadLinks: true as const } : {};
  const input = kind === "pagerduty" ? { kind, name, routingKey, ...(url.trim() ? { url: url.trim() } : {}), ...confirm } : { kind, name, url: url.trim(), ...confirm };
  const checked = validateForm(CreateAlertChannelSchema, input, {});
  const errors = submitted && !checked.ok ? checked.errors : {};
  // The API refuses such a channel unless confirmed (allowDeadLinks): the form asks first, in its own words.
  const unconfirmed = submitted && deadLinks && !allowDeadLinks;

  async function submit(event: FormEvent) {
    event.preventDefault();
    setSubmitted(true);
    if (!checked.ok || (deadLinks && !allowDeadLinks)) return;
    const created = await add.mutateAsync(checked.data).catch(() => null);
    if (!created) return;
    if (created.signingSecret) setSecret({ name: created.name, value: created.signingSecret });
    setName("");
    setUrl("");
    setRoutingKey("");
    setSubmitted(false);
  }

  return (
    <form onSubmit={submit} className="stack" aria-label="Add an alert channel" noValidate style={{ gap: 4 }}>
      <div className="row">
        <label htmlFor="alert-channel-kind">Kind</label>
        <select id="alert-channel-kind" value={kind} onChange={(e) => setKind(e.target.value as CreateAlertChannel["kind"])}>
          <option value="slack">Slack incoming webhook</option>
          <option value="pagerduty">PagerDuty (Events API v2)</option>
          <option value="webhook">Signed webhook (Standard Webhooks)</option>
        </select>
        <label htmlFor="alert-channel-name">Name</label>
        <input id="alert-channel-name" value={name} maxLength={100} placeholder="on-call" onChange={(e) => setName(e.target.value)} style={{ flex: "1 1 120px", minWidth: 0 }} />
        <label htmlFor="alert-channel-url">{kind === "pagerduty" ? "Events URL (optional)" : "URL"}</label>
        <input
          id="alert-channel-url"
          type="url"
          value={url}
          placeholder={kind === "slack" ? "https://hooks.slack.com/services/…" : kind === "pagerduty" ? "https://events.pagerduty.com/v2/enqueue" : "https://example.com/hooks/idemgate"}
          onChange={(e) => setUrl(e.target.value)}
          aria-invalid={errors.url ? true : undefined}
          style={{ flex: "2 1 220px", minWidth: 0 }}
        />
        {kind === "pagerduty" ? (
          <>
            <label htmlFor="alert-channel-routing-key">Routing key</label>
            <input id="alert-channel-routing-key" value={routingKey} autoComplete="off" onChange={(e) => setRoutingKey(e.target.value)} style={{ flex: "1 1 160px", minWidth: 0 }} />
          </>
        ) : null}
        {deadLinks ? (
          <label>
            <input type="checkbox" checked={allowDeadLinks} onChange={(e) => setAllowDeadLinks(e.target.checked)} /> Add it anyway: its links will not open
          </label>
        ) : null}
        <button type="submit" className="primary" disabled={add.isPending}>
          {add.isPending ? "Adding…" : "Add channel"}
        </button>
      </div>
      {Object.entries(errors).map(([field, message]) => (
        <span key={field} className="field-error">
          {field}: {message}
        </span>
      ))}
      {unconfirmed ? (
        <p className="field-error" role="alert" style={{ margin: 0 }}>
          This install has no public URL, so this channel&apos;s “Open in Idemgate” links will not open: tick “Add it anyway” to add it regardless.
        </p>
      ) : null}
      {add.error ? <ErrorState error={add.error} /> : null}
      {secret ? (
        <div className="card banner stack" role="region" aria-label="Signing secret" data-testid="alert-signing-secret">
          <strong>Signing secret for “{secret.name}”: copy it now, it is not shown again</strong>
          <code style={{ wordBreak: "break-all" }}>{secret.value}</code>
          <button type="button" onClick={() => setSecret(null)}>
            Done
          </button>
        </div>
      ) : null}
    </form>
  );
}

function RulesSection({ projectId, channels }: { projectId: string; channels: AlertChannelWire[] }) {
  const alerts = useAlertsQuery(projectId);
  const remove = useRemoveAlertRuleMutation(projectId);
  const names = new Map(channels.map((c) => [c.id, c.name]));
  return (
    <div className="stack">
      <h3 style={{ margin: 0 }}>Rules</h3>
      {channels.length > 0 ? <AddRuleForm projectId={projectId} channels={channels} /> : null}
      <QueryListStates query={alerts} items={(data) => data.rules} loading="Loading rules…" empty={<EmptyState title="No rules yet">Add a channel, then say which conditions go to it.</EmptyState>}>
        {(list) => (
          <ActionsTable label="Alert rules" columns={["Condition", "Tool", "Channels"]}>
            {list.map((rule) => (
              <tr key={rule.id} data-testid="alert-rule-row">
                <td>
                  {CONDITION_LABELS[rule.condition].replace("N minutes", `${rule.minutes ?? "N"} minutes`)}
                </td>
                <td>{rule.tool ? <code>{rule.tool}</code> : <span className="muted">every tool</span>}</td>
                <td>{rule.channelIds.map((id) => names.get(id) ?? id).join(", ") || <span className="muted">none</span>}</td>
                <td>
                  <ConfirmAction
                    label="Remove"
                    ariaLabel={`Remove the rule ${CONDITION_LABELS[rule.condition]}`}
                    question="Remove this rule?"
                    confirmLabel="Remove rule"
                    pending={remove.isPending && remove.variables === rule.id}
                    onConfirm={() => remove.mutate(rule.id)}
                  />
                </td>
              </tr>
            ))}
          </ActionsTable>
        )}
      </QueryListStates>
      {remove.error ? <ErrorState error={remove.error} /> : null}
    </div>
  );
}

function AddRuleForm({ projectId, channels }: { projectId: string; channels: AlertChannelWire[] }) {
  const add = useAddAlertRuleMutation(projectId);
  const [condition, setCondition] = useState<AlertCondition>("storm_opened");
  const [tool, setTool] = useState("");
  const [minutes, setMinutes] = useState("15");
  const [picked, setPicked] = useState<string[]>([]);
  const [submitted, setSubmitted] = useState(false);
  const timed = TIMED_CONDITIONS.includes(condition);
  const input = { condition, channelIds: picked, ...(tool.trim() ? { tool: tool.trim() } : {}), ...(timed ? { minutes: Number(minutes) } : {}) };
  const checked = validateForm(CreateAlertRuleSchema, input, { channelIds: "Pick at least one channel." });
  const errors = submitted && !checked.ok ? checked.errors : {};

  async function submit(event: FormEvent) {
    event.preventDefault();
    setSubmitted(true);
    if (!checked.ok) return;
    if (!(await add.mutateAsync(checked.data).catch(() => null))) return;
    setTool("");
    setPicked([]);
    setSubmitted(false);
  }

  return (
    <form onSubmit={submit} className="stack" aria-label="Add an alert rule" noValidate style={{ gap: 4 }}>
      <div className="row">
        <label htmlFor="alert-rule-condition">When</label>
        <select id="alert-rule-condition" value={condition} onChange={(e) => setCondition(e.target.value as AlertCondition)}>
          {ALERT_CONDITIONS.map((c) => (
            <option key={c} value={c}>
              {CONDITION_LABELS[c]}
            </option>
          ))}
        </select>
        {timed ? (
          <>
            <label htmlFor="alert-rule-minutes">Minutes</label>
            <input id="alert-rule-minutes" type="number" min={1} max={10080} value={minutes} onChange={(e) => setMinutes(e.target.value)} style={{ width: 80 }} />
          </>
        ) : null}
        <label htmlFor="alert-rule-tool">Tool (optional)</label>
        <input id="alert-rule-tool" value={tool} placeholder="every tool" onChange={(e) => setTool(e.target.value)} style={{ flex: "1 1 120px", minWidth: 0 }} />
      </div>
      <fieldset className="row" style={{ border: 0, padding: 0, margin: 0 }}>
        <legend className="muted">Send to</legend>
        {channels.map((channel) => (
          <label key={channel.id} style={{ display: "inline-flex", gap: 4, alignItems: "center" }}>
            <input
              type="checkbox"
              checked={picked.includes(channel.id)}
              onChange={(e) => setPicked(e.target.checked ? [...picked, channel.id] : picked.filter((id) => id !== channel.id))}
            />
            {channel.name}
          </label>
        ))}
        <button type="submit" className="primary" disabled={add.isPending}>
          {add.isPending ? "Adding…" : "Add rule"}
        </button>
      </fieldset>
      {Object.entries(errors).map(([field, message]) => (
        <span key={field} className="field-error">
          {message}
        </span>
      ))}
      {add.error ? <ErrorState error={add.error} /> : null}
    </form>
  );
}

function DeliveryLog({ projectId, channels }: { projectId: string; channels: AlertChannelWire[] }) {
  const deliveries = useAlertDeliveriesQuery(projectId);
  const names = new Map(channels.map((c) => [c.id, c.name]));
  return (
    <div className="stack">
      <h3 style={{ margin: 0 }}>Delivery log</h3>
      <QueryListStates query={deliveries} items={(data) => data.deliveries} loading="Loading deliveries…" empty={<EmptyState title="Nothing sent yet">Alerts and test alerts appear here with every attempt.</EmptyState>}>
        {(list) => (
          <TableWrap label="Alert deliveries">
            <table className="data">
              <thead>
                <tr>
                  {["Created", "Alert", "Channel", "Status", "Attempts", "Response", "Last error"].map((column) => (
                    <th key={column} scope="col">
                      {column}
                    </th>
                  ))}
                </tr>
              </thead>
              <tbody>
                {list.map((delivery) => (
                  <tr key={delivery.id} data-testid="alert-delivery-row" title={delivery.log.map((l) => `${l.at} ${l.outcome} ${l.statusCode ?? "—"} ${l.error ?? ""}`).join("\n")}>
                    <td style={{ whiteSpace: "nowrap" }}>{formatInstant(delivery.createdAt)}</td>
                    <td>
                      {delivery.title}
                      {delivery.action === "resolve" ? <span className="muted"> (resolve)</span> : null}
                    </td>
                    <td>{names.get(delivery.channelId) ?? delivery.channelId}</td>
                    <td data-testid="alert-delivery-status">{delivery.status}</td>
                    <td>{delivery.attempts}</td>
                    <td>{delivery.lastCode ?? <span className="muted">—</span>}</td>
                    <td>{delivery.lastError ?? <span className="muted">—</span>}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </TableWrap>
        )}
      </QueryListStates>
    </div>
  );
}
