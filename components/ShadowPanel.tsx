"use client";

import Link from "next/link";
import { shadowRange, useShadowQuery } from "@/lib/dashboard/queries/use-shadow-query";
import { ErrorState } from "./StateViews";

const int = new Intl.NumberFormat("en-US");

/**
 * Shadow mode on the overview: per tool, "would have prevented N duplicate executions", each number
 * linking to the calls behind it, so a team can decide which tool to switch to enforce. Shown only
 * when shadow mode has something to say in the range.
 */
export function ShadowPanel({ projectId, from, to, rangeLabel }: { projectId: string; from: string; to: string; rangeLabel: string }) {
  const shadow = useShadowQuery(projectId, from, to);
  if (shadow.error) return <ErrorState error={shadow.error} onRetry={() => shadow.refetch()} />;
  const tools = shadow.data?.tools ?? [];
  if (tools.length === 0) return null;
  const range = shadowRange(from, to);
  const base = `/projects/${encodeURIComponent(projectId)}`;
  const callsHref = (tool: string) => `${base}/calls?${new URLSearchParams({ tool, shadow: "prevented", from: range.from, to: range.to })}`;
  return (
    <section aria-labelledby="shadow-title" className="card" data-testid="shadow-panel">
      <h2 id="shadow-title" style={{ marginTop: 0, fontSize: "1.1em" }}>
        Shadow mode
      </h2>
      <p className="muted chart-help">
        Tools in shadow mode run every call; these are the duplicates the gate would have stopped, {range.clipped ? "over the last 31 days" : rangeLabel.toLowerCase()}. Switch a tool to enforce on
        its policy page.
      </p>
      <ul style={{ margin: 0 }}>
        {tools.map((t) => (
          <li key={t.tool} data-testid="shadow-tool">
            <code>{t.tool}</code>:{" "}
            <Link href={callsHref(t.tool)}>
              would have prevented {int.format(t.wouldPrevent)} duplicate execution{t.wouldPrevent === 1 ? "" : "s"}
            </Link>{" "}
            · <Link href={`${base}/tools/${encodeURIComponent(t.tool)}`}>policy</Link>
          </li>
        ))}
      </ul>
    </section>
  );
}
