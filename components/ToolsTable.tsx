"use client";

import Link from "next/link";
import { useProject } from "./ProjectContext";
import { EmptyState, ErrorState, Loading } from "./StateViews";
import { usePoliciesQuery } from "@/lib/dashboard/queries/use-policies-query";
import { TableWrap } from "./TableWrap";

/** Every tool seen or configured, its last 24 h of traffic and whether it has its own policy. */
export function ToolsTable() {
  const { projectId, can } = useProject();
  const admin = can("admin");
  const tools = usePoliciesQuery(projectId, admin);
  const base = `/projects/${encodeURIComponent(projectId)}/tools/`;
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
                <th scope="col">Tool</th>
                <th scope="col">Calls</th>
                <th scope="col">Executions</th>
                <th scope="col">Replays</th>
                <th scope="col">Policy</th>
              </tr>
            </thead>
            <tbody>
              {tools.data.tools.map((t) => (
                <tr key={t.tool} data-testid="tool-row">
                  <td>
                    <Link href={base + encodeURIComponent(t.tool)}>{t.tool === "*" ? "* (project defaults)" : t.tool}</Link>
                  </td>
                  <td>{t.traffic.calls}</td>
                  <td>{t.traffic.executions}</td>
                  <td>{t.traffic.replays}</td>
                  <td>{t.hasPolicy ? `own, v${t.ownVersion}` : <span className="muted">inherited</span>}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableWrap>
      )}
    </div>
  );
}
