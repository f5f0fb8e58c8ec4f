"use client";

import { AlertsPanel } from "./AlertsPanel";
import { ApiKeysPanel } from "./ApiKeysPanel";
import { MembersPanel } from "./MembersPanel";
import { OutboundAllowlistPanel } from "./OutboundAllowlistPanel";
import { useProject } from "./ProjectContext";
import { EmptyState } from "./StateViews";
import { UpstreamsPanel } from "./UpstreamsPanel";

/** Project settings: API keys and members for admins; everyone else sees their access and who to ask. */
export function SettingsView() {
  const { projectId, role, can } = useProject();
  return (
    <div className="stack">
      <h1>Settings</h1>
      <p className="muted" style={{ margin: 0 }}>
        Project <code>{projectId}</code> · your role: <strong>{role}</strong>
      </p>
      {can("admin") ? (
        <>
          <ApiKeysPanel projectId={projectId} />
          <MembersPanel projectId={projectId} />
          <OutboundAllowlistPanel projectId={projectId} />
          <UpstreamsPanel projectId={projectId} />
          <AlertsPanel projectId={projectId} />
        </>
      ) : (
        <EmptyState title="API keys and members are managed by project admins">
          As {role === "viewer" ? "a viewer" : "an operator"} you can read the dashboard; ask an admin of {projectId} for an API key or another role.
        </EmptyState>
      )}
    </div>
  );
}
