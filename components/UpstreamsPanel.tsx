"use client";

import { type FormEvent, useState } from "react";
import { ActionsTable } from "./ActionsTable";
import { ConfirmAction } from "./ConfirmAction";
import { QueryListStates } from "./QueryListStates";
import { EmptyState, ErrorState } from "./StateViews";
import { CreateUpstreamSchema } from "@/lib/contract/upstreams";
import { validateForm, withoutBlanks } from "@/lib/dashboard/form-errors";
import { formatInstant } from "@/lib/dashboard/format-time";
import { useCreateUpstreamMutation, useDeleteUpstreamMutation, useUpstreamsQuery } from "@/lib/dashboard/queries/use-upstreams-query";

/** The project's upstreams (admin): MCP servers the gateway fronts at /mcp/{name}, and HTTP APIs. */
export function UpstreamsPanel({ projectId }: { projectId: string }) {
  const upstreams = useUpstreamsQuery(projectId);
  const remove = useDeleteUpstreamMutation(projectId);
  return (
    <section aria-labelledby="upstreams-title" className="card stack" data-testid="upstreams-panel">
      <h2 id="upstreams-title" style={{ margin: 0, fontSize: "1.2em" }}>
        Upstreams
      </h2>
      <p className="muted" style={{ margin: 0 }}>
        MCP servers and HTTP APIs the gateways forward gated calls to. An MCP client points at <code>/mcp/&lt;name&gt;</code> with a project API key. Secrets
        are write-only: stored encrypted, never shown again. URLs must be on the outbound allowlist.
      </p>
      <AddUpstreamForm projectId={projectId} />
      <QueryListStates
        query={upstreams}
        items={(data) => data.upstreams}
        loading="Loading upstreams…"
        empty={<EmptyState title="No upstreams yet">Add the MCP server your agents call, e.g. https://mcp.example.com/mcp.</EmptyState>}
      >
        {(list) => (
          <ActionsTable label="Upstreams" columns={["Name", "Kind", "Where", "Secret", "Updated"]}>
            {list.map((upstream) => (
              <tr key={upstream.id} data-testid="upstream-row">
                <td>
                  <code>{upstream.name}</code>
                </td>
                <td>{upstream.kind === "mcp" ? `MCP · ${upstream.transport === "stdio" ? "stdio" : "Streamable HTTP"}` : "HTTP"}</td>
                <td>
                  <code>{upstream.url ?? [upstream.command, ...upstream.args].join(" ")}</code>
                </td>
                <td>{upstream.hasSecret ? "set" : <span className="muted">none</span>}</td>
                <td style={{ whiteSpace: "nowrap" }}>{formatInstant(upstream.updatedAt)}</td>
                <td>
                  <ConfirmAction
                    label="Delete"
                    ariaLabel={`Delete upstream ${upstream.name}`}
                    question={`Delete ${upstream.name}? Clients of /mcp/${upstream.name} get "no upstream" from the next call on.`}
                    confirmLabel="Delete upstream"
                    pending={remove.isPending && remove.variables === upstream.id}
                    onConfirm={() => remove.mutate(upstream.id)}
                  />
                </td>
              </tr>
            ))}
          </ActionsTable>
        )}
      </QueryListStates>
      {remove.error ? <ErrorState error={remove.error} /> : null}
    </section>
  );
}

type Kind = "mcp-http" | "mcp-stdio" | "http";

function AddUpstreamForm({ projectId }: { projectId: string }) {
  const create = useCreateUpstreamMutation(projectId);
  const [kind, setKind] = useState<Kind>("mcp-http");
  const [fields, setFields] = useState({ name: "", url: "", command: "", secret: "" });
  const [submitted, setSubmitted] = useState(false);
  const set = (field: keyof typeof fields) => (event: { target: { value: string } }) => setFields((current) => ({ ...current, [field]: event.target.value }));
  const given = withoutBlanks(fields);
  const input =
    kind === "mcp-stdio"
      ? { kind: "mcp", transport: "stdio", name: given.name, command: given.command?.split(/\s+/)[0], args: given.command?.split(/\s+/).slice(1) ?? [], secret: given.secret }
      : kind === "mcp-http"
        ? { kind: "mcp", transport: "streamable_http", name: given.name, url: given.url, secret: given.secret }
        : { kind: "http", name: given.name, url: given.url, secret: given.secret };
  const checked = validateForm(CreateUpstreamSchema, JSON.parse(JSON.stringify(input)));
  const errors = submitted && !checked.ok ? checked.errors : {};

  async function submit(event: FormEvent) {
    event.preventDefault();
    setSubmitted(true);
    if (!checked.ok) return;
    if (!(await create.mutateAsync(checked.data).catch(() => null))) return;
    setFields({ name: "", url: "", command: "", secret: "" });
    setSubmitted(false);
  }

  const error = (field: string) =>
    errors[field] ? (
      <span id={`upstream-${field}-error`} className="field-error">
        {errors[field]}
      </span>
    ) : null;

  return (
    <form onSubmit={submit} className="stack" aria-label="Add an upstream" noValidate style={{ gap: 4 }}>
      <div className="row">
        <label htmlFor="upstream-kind">Kind</label>
        <select id="upstream-kind" value={kind} onChange={(e) => setKind(e.target.value as Kind)}>
          <option value="mcp-http">MCP · Streamable HTTP</option>
          <option value="mcp-stdio">MCP · stdio command (self-hosted)</option>
          <option value="http">HTTP API</option>
        </select>
        <label htmlFor="upstream-name">Name</label>
        <input id="upstream-name" value={fields.name} maxLength={63} placeholder="payments" onChange={set("name")} aria-invalid={errors.name ? true : undefined} aria-describedby={errors.name ? "upstream-name-error" : undefined} style={{ flex: "0 1 160px", minWidth: 0 }} />
        {kind === "mcp-stdio" ? (
          <>
            <label htmlFor="upstream-command">Command</label>
            <input id="upstream-command" value={fields.command} placeholder="npx -y @acme/mcp-server" onChange={set("command")} aria-invalid={errors.command ? true : undefined} style={{ flex: "1 1 220px", minWidth: 0 }} />
          </>
        ) : (
          <>
            <label htmlFor="upstream-url">URL</label>
            <input id="upstream-url" value={fields.url} placeholder="https://mcp.example.com/mcp" onChange={set("url")} aria-invalid={errors.url ? true : undefined} aria-describedby={errors.url ? "upstream-url-error" : undefined} style={{ flex: "1 1 220px", minWidth: 0 }} />
          </>
        )}
        <label htmlFor="upstream-secret">Secret (write-only)</label>
        <input id="upstream-secret" type="password" autoComplete="off" value={fields.secret} onChange={set("secret")} style={{ flex: "0 1 160px", minWidth: 0 }} />
        <button type="submit" className="primary" disabled={create.isPending}>
          {create.isPending ? "Adding…" : "Add"}
        </button>
      </div>
      {error("name")}
      {error("url")}
      {error("command")}
      {create.error ? <ErrorState error={create.error} /> : null}
    </form>
  );
}
