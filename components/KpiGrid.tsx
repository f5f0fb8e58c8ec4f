import type { Kpi } from "@/lib/dashboard/prepare-kpis";

export function KpiGrid({ kpis }: { kpis: Kpi[] }) {
  return (
    <ul className="kpis" aria-label="Key figures">
      {kpis.map((k) => (
        <li key={k.id} className={`card kpi${k.tone ? ` ${k.tone}` : ""}`} data-testid={`kpi-${k.id}`}>
          <div className="label">{k.label}</div>
          <div className="value">{k.value}</div>
          {k.hint ? <div className="muted" style={{ fontSize: "0.8em" }}>{k.hint}</div> : null}
        </li>
      ))}
    </ul>
  );
}
