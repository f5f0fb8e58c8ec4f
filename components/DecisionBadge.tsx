import type { ReactNode } from "react";
import { type Tone, toneOfDecision } from "@/lib/dashboard/ledger-labels";

export function ToneBadge({ tone, children, title }: { tone: Tone; children: ReactNode; title?: string }) {
  return (
    <span className={`tone tone-${tone}`} title={title}>
      {children}
    </span>
  );
}

/** A record status or a begin decision, coloured by its tone. */
export function DecisionBadge({ decision }: { decision: string }) {
  return <ToneBadge tone={toneOfDecision(decision)}>{decision.replace(/_/g, " ")}</ToneBadge>;
}
