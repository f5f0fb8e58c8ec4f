"use client";

import { type FormEvent, useState } from "react";
import { ActionsTable } from "./ActionsTable";
import { ConfirmAction } from "./ConfirmAction";
import { QueryListStates } from "./QueryListStates";
import { EmptyState, ErrorState } from "./StateViews";
import { CreateUpstreamSchema, type WireUpstream } from "@/lib/contract/upstreams";
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
      <AddUpstreamForm projectId={projectId} stdioCommands={upstreams.data?.stdioCommands ?? []} />
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
                <td>{upstream.kind === "mcp" ? `MCP · ${upstream.transport === "stdio" ? "stdio" : "Streamable HTTP"}` : <HttpSettings upstream={upstream} />}</td>
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

/** An HTTP upstream's key header and stored-response limit, defaults included, so an operator sees what /gw does. */
function HttpSettings({ upstream }: { upstream: WireUpstream }) {
  const limit = upstream.maxStoredBytes ?? DEFAULT_MAX_STORED_BYTES;
  return (
    <>
      HTTP · key in <code>{upstream.idempotencyHeader ?? "idempotency-key"}</code> · replays responses up to {formatBytes(limit)}
    </>
  );
}

function formatBytes(bytes: number): string {
  if (bytes >= 1024 * 1024 && bytes % (1024 * 1024) === 0) return `${bytes / (1024 * 1024)} MiB`;
  if (bytes >= 1024 && bytes % 1024 === 0) return `${bytes / 1024} KiB`;
  return `${bytes.toLocaleString("en")} bytes`;
}

const DEFAULT_MAX_STORED_BYTES = 1024 * 1024;

type Kind = "mcp-http" | "mcp-stdio" | "http";

function AddUpstreamForm({ projectId, stdioCommands }: { projectId: string; stdioCommands: string[] }) {
  const create = useCreateUpstreamMutation(projectId);
  const [kind, setKind] = useState<Kind>("mcp-http");
  const blank = { name: "", url: "", command: "", secret: "", idempotencyHeader: "", maxStoredBytes: "" };
  const [fields, setFields] = useState(blank);
  const [submitted, setSubmitted] = useState(false);
  const set = (field: keyof typeof fields) => (event: { target: { value: string } }) => setFields((current) => ({ ...current, [field]: event.target.value }));
  const given = withoutBlanks(fields);
  const input =
    kind === "mcp-stdio"
      ? { kind: "mcp", transport: "stdio", name: given.name, command: given.command, secret: given.secret }
      : kind === "mcp-http"
        ? { kind: "mcp", transport: "streamable_http", name: given.name, url: given.url, secret: given.secret }
        : {
            kind: "http",
            name: given.name,
            url: given.url,
            secret: given.secret,
            idempotencyHeader: given.idempotencyHeader,
            maxStoredBytes: given.maxStoredBytes === undefined ? undefined : Number(given.maxStoredBytes),
          };
  const checked = validateForm(CreateUpstreamSchema, JSON.parse(JSON.stringify(input)), { maxStoredBytes: "a whole number of bytes, at most 67108864 (64 MiB)" });
  const errors = submitted && !checked.ok ? checked.errors : {};

  async function submit(event: FormEvent) {
    event.preventDefault();
    setSubmitted(true);
    if (!checked.ok) return;
    if (!(await create.mutateAsync(checked.data).catch(() => null))) return;
    setFields(blank);
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
            {/* The server's owner lists the commands it may spawn (IDEMGATE_STDIO_COMMANDS); a project picks one. */}
            <label htmlFor="upstream-command">Command</label>
            <select id="upstream-command" value={fields.command} onChange={set("command")} aria-invalid={errors.command ? true : undefined} disabled={stdioCommands.length === 0}>
              <option value="">{stdioCommands.length === 0 ? "none configured (IDEMGATE_STDIO_COMMANDS)" : "pick a configured command"}</option>
              {stdioCommands.map((name) => (
                <option key={name} value={name}>
                  {name}
                </option>
              ))}
            </select>
          </>
        ) : (
          <>
            <label htmlFor="upstream-url">URL</label>
            <input id="upstream-url" value={fields.url} placeholder="https://mcp.example.com/mcp" onChange={set("url")} aria-invalid={errors.url ? true : undefined} aria-describedby={errors.url ? "upstream-url-error" : undefined} style={{ flex: "1 1 220px", minWidth: 0 }} />
          </>
        )}
        {kind === "http" ? (
          <>
            <label htmlFor="upstream-key-header">Key header</label>
            <input
              id="upstream-key-header"
              value={fields.idempotencyHeader}
              placeholder="Idempotency-Key"
              onChange={set("idempotencyHeader")}
              aria-invalid={errors.idempotencyHeader ? true : undefined}
              aria-describedby={errors.idempotencyHeader ? "upstream-idempotencyHeader-error" : "upstream-http-help"}
              style={{ flex: "0 1 160px", minWidth: 0 }}
            />
            <label htmlFor="upstream-max-stored">Replay limit (bytes)</label>
            <input
              id="upstream-max-stored"
              inputMode="numeric"
              value={fields.maxStoredBytes}
              placeholder="1048576"
              onChange={set("maxStoredBytes")}
              aria-invalid={errors.maxStoredBytes ? true : undefined}
              aria-describedby={errors.maxStoredBytes ? "upstream-maxStoredBytes-error" : "upstream-http-help"}
              style={{ flex: "0 1 120px", minWidth: 0 }}
            />
          </>
        ) : null}
        <label htmlFor="upstream-secret">Secret (write-only)</label>
        <input id="upstream-secret" type="password" autoComplete="off" value={fields.secret} onChange={set("secret")} style={{ flex: "0 1 160px", minWidth: 0 }} />
        <button type="submit" className="primary" disabled={create.isPending}>
          {create.isPending ? "Adding…" : "Add"}
        </button>
      </div>
      {error("name")}
      {error("url")}
      {error("command")}
      {error("idempotencyHeader")}
      {error("maxStoredBytes")}
      {kind === "http" ? (
        <p id="upstream-http-help" className="muted" style={{ margin: 0 }}>
          The gateway serves it at <code>/gw/&lt;name&gt;/…</code> and sends the gate&apos;s key in the key header (default Idempotency-Key, as Stripe expects). Responses up to the
          replay limit (default 1 MiB) are stored and replayed; larger ones pass through and are recorded as not replayable.
        </p>
      ) : null}
      {create.error ? <ErrorState error={create.error} /> : null}
    </form>
  );
}
