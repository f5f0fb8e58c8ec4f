"use client";

import { type FormEvent, useState } from "react";
import { ActionsTable } from "./ActionsTable";
import { ConfirmAction } from "./ConfirmAction";
import { NewKeyReveal } from "./NewKeyReveal";
import { QueryListStates } from "./QueryListStates";
import { EmptyState, ErrorState } from "./StateViews";
import { CreateApiKeySchema } from "@/lib/contract/operator";
import { validateForm } from "@/lib/dashboard/form-errors";
import { formatInstant } from "@/lib/dashboard/format-time";
import { useApiKeysQuery, useCreateApiKeyMutation, useRevokeApiKeyMutation } from "@/lib/dashboard/queries/use-api-keys-query";

/** Dates stay on one line; on a phone the table scrolls sideways instead. */
const NOWRAP = { whiteSpace: "nowrap" } as const;

/** The project's API keys (admin): list, create (the key shown once), revoke. */
export function ApiKeysPanel({ projectId }: { projectId: string }) {
  const keys = useApiKeysQuery(projectId);
  const revoke = useRevokeApiKeyMutation(projectId);
  const [created, setCreated] = useState<{ name: string; key: string } | null>(null);

  return (
    <section aria-labelledby="api-keys-title" className="card stack" data-testid="api-keys-panel">
      <h2 id="api-keys-title" style={{ margin: 0, fontSize: "1.2em" }}>
        API keys
      </h2>
      <p className="muted" style={{ margin: 0 }}>
        Agents send a key as <code>Authorization: Bearer ig_…</code>. Only a hash is stored: a key is shown once, when it is created.
      </p>
      {created ? <NewKeyReveal name={created.name} secret={created.key} onDone={() => setCreated(null)} /> : <CreateKeyForm projectId={projectId} onCreated={setCreated} />}
      <QueryListStates
        query={keys}
        items={(data) => data.keys}
        loading="Loading the keys…"
        empty={<EmptyState title="No API keys">Create one for each agent or environment, so that each can be revoked alone.</EmptyState>}
      >
        {(list) => (
          <ActionsTable label="API keys" columns={["Name", "Prefix", "Created", "Last used", "State"]}>
            {list.map((k) => (
              <tr key={k.id} data-testid="api-key-row" data-key-id={k.id}>
                <td>{k.name}</td>
                <td>
                  <code>{k.prefix}…</code>
                </td>
                <td style={NOWRAP}>{formatInstant(k.createdAt)}</td>
                <td style={NOWRAP}>{k.lastUsedAt ? formatInstant(k.lastUsedAt) : <span className="muted">never</span>}</td>
                <td>
                  {k.revokedAt ? (
                    <span className="badge denied" title={`Revoked ${formatInstant(k.revokedAt)}`}>
                      revoked
                    </span>
                  ) : (
                    <span className="badge approved">active</span>
                  )}
                </td>
                <td>
                  {k.revokedAt ? (
                    <span className="muted" style={NOWRAP}>
                      {formatInstant(k.revokedAt)}
                    </span>
                  ) : (
                    <ConfirmAction
                      label="Revoke"
                      ariaLabel={`Revoke ${k.name}`}
                      question={`Revoke ${k.name}? Agents using it are refused at once.`}
                      confirmLabel="Revoke key"
                      pending={revoke.isPending && revoke.variables === k.id}
                      onConfirm={() => revoke.mutate(k.id)}
                    />
                  )}
                </td>
              </tr>
            ))}
          </ActionsTable>
        )}
      </QueryListStates>
      {revoke.error ? <ErrorState error={revoke.error} /> : null}
    </section>
  );
}

function CreateKeyForm({ projectId, onCreated }: { projectId: string; onCreated: (created: { name: string; key: string }) => void }) {
  const create = useCreateApiKeyMutation(projectId);
  const [name, setName] = useState("");
  const [submitted, setSubmitted] = useState(false);
  const checked = validateForm(CreateApiKeySchema, { name }, { name: "Name the key (1 to 100 characters), e.g. the agent that uses it." });
  const error = submitted && !checked.ok ? checked.errors.name : undefined;

  async function submit(event: FormEvent) {
    event.preventDefault();
    setSubmitted(true);
    if (!checked.ok) return;
    const answer = await create.mutateAsync(checked.data.name).catch(() => null);
    if (!answer) return;
    // The key lives in the reveal's state only; the mutation forgets its answer.
    create.reset();
    setName("");
    setSubmitted(false);
    onCreated({ name: answer.name, key: answer.key });
  }

  return (
    <form onSubmit={submit} className="stack" aria-label="Create an API key" noValidate style={{ gap: 4 }}>
      <label htmlFor="api-key-name">Key name</label>
      <div className="row">
        <input
          id="api-key-name"
          value={name}
          maxLength={120}
          placeholder="e.g. billing-agent (production)"
          onChange={(e) => setName(e.target.value)}
          aria-invalid={error ? true : undefined}
          aria-describedby={error ? "api-key-name-error" : undefined}
          style={{ flex: "1 1 220px", minWidth: 0 }}
        />
        <button type="submit" className="primary" disabled={create.isPending}>
          {create.isPending ? "Creating…" : "Create key"}
        </button>
      </div>
      {error ? (
        <span id="api-key-name-error" className="field-error">
          {error}
        </span>
      ) : null}
      {create.error ? <ErrorState error={create.error} /> : null}
    </form>
  );
}
