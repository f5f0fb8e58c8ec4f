import Link from "next/link";
import type { Kpi } from "@/lib/dashboard/prepare-kpis";

/** The overview's figures; a decision group's tile links to its calls in the range (the keyboard's way to what a bar click opens). */
export function KpiGrid({ kpis, hrefOf }: { kpis: Kpi[]; hrefOf?: (kpi: Kpi) => string | null }) {
  return (
    <ul className="kpis" aria-label="Key figures">
      {kpis.map((k) => {
        const href = hrefOf?.(k) ?? null;
        return (
          <li key={k.id} className={`card kpi${k.tone ? ` ${k.tone}` : ""}`} data-testid={`kpi-${k.id}`} title={k.hint}>
            <div className="label">
              {k.group ? <span className="swatch" style={{ background: k.group.color }} aria-hidden="true" /> : null}
              {href ? <Link href={href}>{k.label}</Link> : k.label}
            </div>
            <div className="value">{k.value}</div>
            {k.hint ? <div className="muted" style={{ fontSize: "0.8em" }}>{k.hint}</div> : null}
          </li>
        );
      })}
    </ul>
  );
}
