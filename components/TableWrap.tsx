import type { CSSProperties, ReactNode } from "react";

/**
 * A table's horizontal scroller. Focusable and labelled, so a keyboard user can scroll a table that
 * is wider than a phone (axe: scrollable-region-focusable), and a screen reader names the region.
 */
export function TableWrap({ label, children, style }: { label: string; children: ReactNode; style?: CSSProperties }) {
  return (
    <div className="table-wrap" role="region" aria-label={label} tabIndex={0} style={style}>
      {children}
    </div>
  );
}
