/** The per-tool page's extra series, on the decisions chart's buckets so every chart shares one time axis. */
export interface SeriesPoint {
  at: number;
  value: number;
}

interface Bucketed {
  at: number;
  end: number;
}

/** Reported cost per bucket: the API's buckets (only those with a cost) placed on the chart's, zeros elsewhere. */
export function costSeries(buckets: readonly Bucketed[], series: readonly { at: string; amount: number }[]): SeriesPoint[] {
  const byAt = new Map(series.map((p) => [Date.parse(p.at), p.amount]));
  return buckets.map((b) => ({ at: b.at, value: byAt.get(b.at) ?? 0 }));
}

/** Storms open during each bucket (an open storm lasts until now). */
export function stormSeries(buckets: readonly Bucketed[], storms: readonly { startedAt: string; endedAt: string | null }[]): SeriesPoint[] {
  const spans = storms.map((s) => ({ from: Date.parse(s.startedAt), to: s.endedAt === null ? Number.POSITIVE_INFINITY : Date.parse(s.endedAt) }));
  return buckets.map((b) => ({ at: b.at, value: spans.filter((s) => s.from < b.end && s.to > b.at).length }));
}

/** A cost as people read money: the currency's own symbol and decimals (compact for an axis: "$16", "$1.2K"). */
export function formatCost(amount: number, currency: string, compact = false): string {
  try {
    return new Intl.NumberFormat("en-US", { style: "currency", currency, ...(compact ? { notation: "compact" as const } : {}) }).format(amount);
  } catch {
    return `${amount} ${currency}`;
  }
}
