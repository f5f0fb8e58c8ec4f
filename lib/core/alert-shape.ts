import { type Alert, type AlertAction, type AlertCondition, type AlertSeverity, type AlertSignal, dedupKeyOf, parseDetail } from "./alerts";

/**
 * The alert a routed signal becomes, pure: its title, summary, severity, link and PagerDuty
 * dedup_key, an incident's counted update, and the settings page's test alert. Which signals are
 * sent where is alerts.ts; each channel's body is alert-payloads.ts.
 */

const COUNTED: Partial<Record<AlertCondition, string>> = { loop_blocked: "Blocked", budget_exceeded: "Refused" };

/**
 * The alert of an incident that has gathered `count` signals: its summary says how many. As an
 * update (`update`), a message of its own that says the incident changed: `Updated: …`, type
 * `alert.<condition>.updated`, and for PagerDuty a trigger under the same dedup_key (which updates
 * the open incident, never opens a second).
 */
export function countedAlert(alert: Alert, count: number, update: boolean): Alert {
  const counted = count > 1 ? { ...alert, summary: `${alert.summary} ${COUNTED[alert.condition] ?? "Raised"} ${count} times in this run so far.`, data: { ...alert.data, count } } : alert;
  return update ? { ...counted, type: `${alert.type}.updated`, title: `Updated: ${alert.title}` } : counted;
}

const SEVERITY: Record<AlertCondition, AlertSeverity> = {
  storm_opened: "error",
  storm_closed: "info",
  dedup_rate: "error",
  loop_blocked: "warning",
  budget_exceeded: "warning",
  lease_lost: "critical",
  verify_unresolved: "warning",
  approval_pending: "info",
  compensation_failed: "critical",
};

/**
 * The alert a signal becomes for one condition. `storm` is the storm as the storms API gives it
 * (the storm webhook's old `data`), when the signal is about one.
 */
export function shapeAlert(signal: AlertSignal, condition: AlertCondition, baseUrl: string, storm?: Record<string, unknown> | null): Alert {
  const detail = signal.detail ?? {};
  const tool = signal.tool;
  const project = encodeURIComponent(signal.projectId);
  const pages = `${baseUrl.replace(/\/$/, "")}/projects/${project}`;
  const callLink = signal.callId ? `${pages}/calls/${encodeURIComponent(signal.callId)}` : null;
  const runLink = signal.runId ? `${pages}/runs/${encodeURIComponent(signal.runId)}` : null;
  const isStorm = signal.kind === "storm_opened" || signal.kind === "storm_closed";
  const resolves = typeof detail.resolves === "string" ? detail.resolves : null;
  const action: AlertAction = signal.kind === "storm_closed" || resolves !== null ? "resolve" : "trigger";
  const base = {
    id: signal.id,
    condition,
    action,
    projectId: signal.projectId,
    tool,
    severity: action === "resolve" ? ("info" as const) : SEVERITY[condition],
    dedupKey: dedupKeyOf(signal, condition, resolves),
    at: signal.at,
  };
  if (isStorm) {
    const figures = stormFigures(detail);
    const opened = signal.kind === "storm_opened";
    return {
      ...base,
      type: opened ? "storm.opened" : "storm.closed",
      title: opened ? `Retry storm opened on ${tool}` : `Retry storm closed on ${tool}`,
      summary: opened ? figures.opened : figures.closed,
      link: `${pages}/storms/${encodeURIComponent(signal.sourceId)}`,
      data: storm ?? { id: signal.sourceId, tool, ...detail },
    };
  }
  const inner = parseDetail(detail.detail) ?? {};
  const data = { ...detail, detail: inner, runId: signal.runId, callId: signal.callId };
  const type = `alert.${condition}`;
  if (resolves !== null) {
    const opened = shapeAlert({ ...signal, id: resolves, detail: { ...detail, resolves: undefined } }, condition, baseUrl);
    return { ...base, type: `${type}.resolved`, title: `Resolved: ${opened.title}`, summary: RESOLVED_WHY[condition] ?? "The condition has cleared.", link: opened.link, data };
  }
  switch (condition) {
    case "lease_lost": {
      // The event's own attempt is the record's current one; the attempt that answered late is in its detail.
      const late = typeof inner.lateAttempt === "number" ? inner.lateAttempt : null;
      const who = late === null ? `An earlier attempt of call ${signal.callId}` : `Attempt ${late} of call ${signal.callId}`;
      return {
        ...base,
        type,
        title: `${tool} may have run twice`,
        summary: `${who} of ${tool} (run ${signal.runId}) answered after its lease was lost to attempt ${String(detail.attempt)}: both may have run the same effect.`,
        link: callLink ?? runLink ?? pages,
        data,
      };
    }
    case "budget_exceeded":
      return {
        ...base,
        type,
        title: `Run ${signal.runId} exceeded its budget on ${tool}`,
        summary: budgetSummary(tool, signal.runId, parseDetail(inner.budget)),
        link: runLink ?? pages,
        data,
      };
    case "loop_blocked": {
      const loop = parseDetail(inner.loop) ?? {};
      const repeats = typeof loop.repeats === "number" ? ` after ${loop.repeats} repeats` : "";
      return {
        ...base,
        type,
        title: `Loop blocked on ${tool}`,
        summary: `Run ${signal.runId} kept calling ${tool} with the same arguments${repeats}: the loop detector blocked it.`,
        link: runLink ?? pages,
        data,
      };
    }
    case "compensation_failed":
      return {
        ...base,
        type,
        title: `Compensation failed: ${tool}`,
        summary: `The undo ${tool} failed permanently in run ${signal.runId}: the run stays compensation_failed until an operator retries or resolves it.`,
        link: runLink ?? pages,
        data,
      };
    case "verify_unresolved":
      return {
        ...base,
        type,
        title: `${tool}: verify unresolved for ${String(detail.minutes)} min`,
        summary: `Call ${signal.callId} of ${tool} (run ${signal.runId}) was told to verify ${String(detail.minutes)} minutes ago and has no answer yet: check downstream and resolve it.`,
        link: callLink ?? pages,
        data,
      };
    case "approval_pending":
      return {
        ...base,
        type,
        title: `Resend request waiting ${String(detail.minutes)} min`,
        summary: `Resend request ${signal.sourceId} for ${tool} (call ${signal.callId}) has been pending for ${String(detail.minutes)} minutes: approve or deny it.`,
        link: `${pages}/approvals`,
        data,
      };
    default:
      return { ...base, type, title: `${condition} on ${tool}`, summary: `${condition} on ${tool}`, link: pages, data };
  }
}


/** Why a closable condition's incident was resolved, in the words of its resolve. */
const RESOLVED_WHY: Partial<Record<AlertCondition, string>> = {
  verify_unresolved: "The verify was answered (or resolved by an operator): the call has an outcome.",
  approval_pending: "The resend request was approved, denied or expired.",
  budget_exceeded: "An operator raised the run's budget: its next begin is judged against the new limit.",
  loop_blocked: "The run moved on (a later begin was not blocked) or was aborted.",
  compensation_failed: "An operator retried the undo or resolved it by hand.",
};

/** The spend a `budget_exceeded` event carries (`{exceeded, calls, maxCalls, spent, maxCost, currency}`), in words. */
function budgetSummary(tool: string | null, runId: string | null, budget: Record<string, unknown> | null): string {
  const head = `A begin of ${tool} in run ${runId} was blocked`;
  if (budget?.exceeded === "calls") return `${head}: the run made ${String(budget.calls)} tool calls of ${String(budget.maxCalls)} allowed.`;
  if (budget?.exceeded === "cost") {
    const money = (value: unknown) => Number(value ?? 0).toFixed(2);
    return `${head}: the run spent ${money(budget.spent)} ${String(budget.currency ?? "")} of ${money(budget.maxCost)}.`;
  }
  return `${head}: the run's budget is spent.`;
}

function stormFigures(detail: Record<string, unknown>): { opened: string; closed: string } {
  const n = (key: string) => (typeof detail[key] === "number" ? (detail[key] as number) : Number(detail[key] ?? 0));
  const window = `${n("windowSeconds")} s`;
  const baseline = n("baseline");
  const ratio = baseline > 0 ? ` (${(n("openingHits") / baseline).toFixed(1)}× baseline)` : "";
  const rule = detail.rule === "absolute" ? "no baseline yet; the absolute rule opened it" : `baseline ${baseline.toFixed(1)} per window`;
  return {
    opened: `${n("openingHits")} dedup hits in a ${window} window vs ${rule}${ratio}; threshold ${n("threshold").toFixed(1)}. ${n("runsInvolved")} run(s) involved.`,
    closed: `The dedup rate is back under its threshold. ${n("totalHits")} dedup hits in all, peak ${n("peakHits")} per ${window} window (baseline ${baseline.toFixed(1)}).`,
  };
}

/** A test alert, sent to one channel from the settings page. */
export function testAlert(id: string, projectId: string, baseUrl: string, at: number): Alert {
  return {
    id,
    type: "alert.test",
    condition: "storm_opened",
    action: "trigger",
    projectId,
    tool: null,
    title: "Idemgate test alert",
    summary: "This is a test alert from Idemgate's Settings → Alerts. Nothing is wrong.",
    severity: "info",
    link: `${baseUrl.replace(/\/$/, "")}/projects/${encodeURIComponent(projectId)}/settings`,
    dedupKey: `idemgate:${projectId}:${id}`,
    at,
    data: {},
    test: true,
  };
}
