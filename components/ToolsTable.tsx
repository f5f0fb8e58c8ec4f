"use client";

import Link from "next/link";
import { useProject } from "./ProjectContext";
import { EmptyState, ErrorState, Loading } from "./StateViews";
import type { McpToolList } from "@/lib/contract/upstreams";
import { useMcpToolsQuery } from "@/lib/dashboard/queries/use-mcp-tools-query";
import { usePoliciesQuery } from "@/lib/dashboard/queries/use-policies-query";
import { TableWrap } from "./TableWrap";
import { FIGURE_DEFINITIONS } from "@/lib/dashboard/figure-definitions";
import type { ToolSummary } from "@/lib/contract/admin-policies";
import { type SortAccessors, sortRows } from "@/lib/dashboard/table-sort";
import { useUrlSort } from "@/lib/dashboard/use-url-sort";
import { SortableHeader } from "./SortableHeader";

const TOOL_SORT: SortAccessors<ToolSummary> = {
  tool: (t) => t.tool,
  calls: (t) => t.traffic.calls,
  executions: (t) => t.traffic.executions,
  dedupHits: (t) => t.traffic.dedupHits ?? t.traffic.replays,
  shadow: (t) => t.traffic.wouldPrevent ?? 0,
  policy: (t) => (t.hasPolicy ? t.ownVersion : null),
};

/** Every tool seen or configured, its last 24 h of traffic and whether it has its own policy. */
export function ToolsTable() {
  const { projectId, can } = useProject();
  const admin = can("admin");
  const tools = usePoliciesQuery(projectId, admin);
  const mcp = useMcpToolsQuery(projectId, admin);
  const hints = new Map((mcp.data?.tools ?? []).map((t) => [t.tool, t.annotations]));
  const base = `/projects/${encodeURIComponent(projectId)}/tools/`;
  const { sort, toggle } = useUrlSort(Object.keys(TOOL_SORT));
  return (
    <div className="stack">
      <h1>Tools &amp; policies</h1>
      {!admin ? (
        <EmptyState title="Policies need the admin role">Ask a project admin to change a tool&apos;s policy.</EmptyState>
      ) : tools.error ? (
        <ErrorState error={tools.error} onRetry={() => tools.refetch()} />
      ) : tools.isPending ? (
        <Loading />
      ) : tools.data.tools.length === 0 ? (
        <EmptyState title="No tools yet">Tools appear once an agent calls the gate for them.</EmptyState>
      ) : (
        <TableWrap label="Tools">
          <table className="data">
            <caption className="muted" style={{ textAlign: "left" }}>
              Traffic since {new Date(tools.data.trafficSince).toISOString().slice(0, 16).replace("T", " ")} UTC
            </caption>
            <thead>
              <tr>
                <SortableHeader column="tool" label="Tool" sort={sort} onSort={toggle} />
                <SortableHeader column="calls" label="Calls" title={FIGURE_DEFINITIONS.calls} sort={sort} onSort={toggle} firstDir="desc" />
                <SortableHeader column="executions" label="Executions" title={FIGURE_DEFINITIONS.executions} sort={sort} onSort={toggle} firstDir="desc" />
                <SortableHeader column="dedupHits" label="Dedup hits" title={FIGURE_DEFINITIONS.dedupHits} sort={sort} onSort={toggle} firstDir="desc" />
                <SortableHeader column="shadow" label="Shadow mode" sort={sort} onSort={toggle} firstDir="desc" />
                <SortableHeader column="policy" label="Policy" sort={sort} onSort={toggle} firstDir="desc" />
                <th scope="col">MCP hints</th>
              </tr>
            </thead>
            <tbody>
              {sortRows(tools.data.tools, sort, TOOL_SORT).map((t) => (
                <tr key={t.tool} data-testid="tool-row">
                  <td>
                    <Link href={base + encodeURIComponent(t.tool)}>{t.tool === "*" ? "* (project defaults)" : t.tool}</Link>
                  </td>
                  <td data-testid="tool-calls">{t.traffic.calls}</td>
                  <td data-testid="tool-executions">{t.traffic.executions}</td>
                  <td data-testid="tool-dedup-hits">{t.traffic.dedupHits ?? t.traffic.replays}</td>
                  <td data-testid="tool-shadow">
                    {t.overrides?.mode === "shadow" || (t.traffic.wouldPrevent ?? 0) > 0 ? (
                      <Link href={`/projects/${encodeURIComponent(projectId)}/calls?tool=${encodeURIComponent(t.tool)}&shadow=prevented`}>
                        would have prevented {t.traffic.wouldPrevent ?? 0} duplicate execution{t.traffic.wouldPrevent === 1 ? "" : "s"}
                      </Link>
                    ) : (
                      <span className="muted">—</span>
                    )}
                  </td>
                  <td>{t.hasPolicy ? `own, v${t.ownVersion}` : <span className="muted">inherited</span>}</td>
                  <td data-testid="tool-hints">{hintsText(hints.get(t.tool))}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableWrap>
      )}
      {mcp.data && mcp.data.unreachable.length > 0 ? (
        <p className="muted">
          MCP hints missing for {mcp.data.unreachable.map((u) => u.upstream).join(", ")}: the upstream could not be listed just now.
        </p>
      ) : null}
    </div>
  );
}

type Hints = McpToolList["tools"][number]["annotations"];

/** MCP tool annotations in words: untrusted hints from the upstream, which seed defaults only. */
function hintsText(hints: Hints | undefined) {
  if (!hints) return <span className="muted">—</span>;
  const words = [
    hints.readOnlyHint ? "read-only" : null,
    hints.destructiveHint ? "destructive" : null,
    hints.idempotentHint ? "idempotent" : null,
    hints.openWorldHint ? "open world" : null,
  ].filter((word): word is string => word !== null);
  return words.length > 0 ? words.join(", ") : <span className="muted">none</span>;
}
