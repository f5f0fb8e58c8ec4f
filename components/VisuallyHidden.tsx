import type { ReactNode } from "react";

const HIDDEN = { position: "absolute", width: 1, height: 1, padding: 0, margin: -1, overflow: "hidden", clip: "rect(0 0 0 0)", whiteSpace: "nowrap", border: 0 } as const;

/**
 * Text for screen readers only (e.g. the name of a column of buttons). Absolutely positioned: put
 * it inside a positioned box (a scrolling table wrapper with `position: relative`), or it can widen the page.
 */
export function VisuallyHidden({ children }: { children: ReactNode }) {
  return <span style={HIDDEN}>{children}</span>;
}
