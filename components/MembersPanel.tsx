"use client";

import { type FormEvent, type ReactNode, useState } from "react";
import { ActionsTable } from "./ActionsTable";
import { ConfirmAction } from "./ConfirmAction";
import { QueryListStates } from "./QueryListStates";
import { EmptyState, ErrorState } from "./StateViews";
import { AddMemberSchema, RoleSchema } from "@/lib/contract/operator";
import { validateForm, withoutBlanks } from "@/lib/dashboard/form-errors";
import { formatInstant } from "@/lib/dashboard/format-time";
import { useMemberMutations, useMembersQuery } from "@/lib/dashboard/queries/use-members-query";
import { useMeQuery } from "@/lib/dashboard/queries/use-me-query";
import type { MemberRole } from "@/lib/store/ports/operator-store";

const ROLES = RoleSchema.options;
const ROLE_HELP: Record<MemberRole, string> = {
  viewer: "reads everything",
  operator: "also approves resends, evicts and resolves calls",
  admin: "also manages policies, API keys and members",
};

/** The project's members and roles (admin): add by email, change a role, remove. Nobody changes or removes themselves. */
export function MembersPanel({ projectId }: { projectId: string }) {
  const members = useMembersQuery(projectId);
  const me = useMeQuery();
  const { setRole, remove } = useMemberMutations(projectId);
  const [notice, setNotice] = useState("");

  return (
    <section aria-labelledby="members-title" className="card stack" data-testid="members-panel">
      <h2 id="members-title" style={{ margin: 0, fontSize: "1.2em" }}>
        Members and roles
      </h2>
      <ul className="muted" style={{ margin: 0, paddingLeft: 20 }}>
        {ROLES.map((r) => (
          <li key={r}>
            <strong>{r}</strong>: {ROLE_HELP[r]}
          </li>
        ))}
      </ul>
      <QueryListStates
        query={members}
        items={(data) => data.members}
        loading="Loading the members…"
        empty={<EmptyState title="No members yet">Instance admins see every project; add the people who work on this one.</EmptyState>}
      >
        {(list) => (
          <ActionsTable label="Members" columns={["Email", "Name", "Role", "Member since"]}>
            {list.map((m) => {
              const self = m.userId === me.data?.user.id;
              return (
                <tr key={m.userId} data-testid="member-row">
                  <td>{m.email}</td>
                  <td>{m.name}</td>
                  <td>
                    {self ? (
                      <span>
                        {m.role} <span className="muted">(you)</span>
                      </span>
                    ) : (
                      <select
                        aria-label={`Role of ${m.email}`}
                        value={m.role}
                        disabled={setRole.isPending}
                        onChange={(e) => {
                          const role = RoleSchema.parse(e.target.value);
                          setRole.mutate({ userId: m.userId, role }, { onSuccess: () => setNotice(`${m.email} is now ${role}.`) });
                        }}
                      >
                        {ROLES.map((r) => (
                          <option key={r} value={r}>
                            {r}
                          </option>
                        ))}
                      </select>
                    )}
                  </td>
                  <td style={{ whiteSpace: "nowrap" }}>{formatInstant(m.createdAt)}</td>
                  <td>
                    {self ? null : (
                      <ConfirmAction
                        label="Remove"
                        ariaLabel={`Remove ${m.email}`}
                        question={`Remove ${m.email} from this project?`}
                        confirmLabel="Remove member"
                        pending={remove.isPending && remove.variables === m.userId}
                        onConfirm={() => remove.mutate(m.userId, { onSuccess: () => setNotice(`${m.email} was removed.`) })}
                      />
                    )}
                  </td>
                </tr>
              );
            })}
          </ActionsTable>
        )}
      </QueryListStates>
      <span role="status" aria-live="polite">
        {notice}
      </span>
      {setRole.error ? <ErrorState error={setRole.error} /> : null}
      {remove.error ? <ErrorState error={remove.error} /> : null}
      <AddMemberForm projectId={projectId} onAdded={(email, role) => setNotice(`${email} was added as ${role}.`)} />
    </section>
  );
}

const EMPTY = { email: "", role: "viewer", name: "", password: "" };

function AddMemberForm({ projectId, onAdded }: { projectId: string; onAdded: (email: string, role: MemberRole) => void }) {
  const { add } = useMemberMutations(projectId);
  const [values, setValues] = useState(EMPTY);
  const [submitted, setSubmitted] = useState(false);
  const checked = validateForm(AddMemberSchema, withoutBlanks(values), {
    email: "Enter the person's email address.",
    password: "At least 8 characters (only for a new account).",
  });
  const errors = submitted && !checked.ok ? checked.errors : {};
  const set = (field: keyof typeof EMPTY) => (e: { target: { value: string } }) => setValues((v) => ({ ...v, [field]: e.target.value }));

  function submit(event: FormEvent) {
    event.preventDefault();
    setSubmitted(true);
    if (!checked.ok) return;
    add.mutate(checked.data, {
      onSuccess: (member) => {
        setValues(EMPTY);
        setSubmitted(false);
        onAdded(member.email, member.role);
      },
    });
  }

  const field = (name: keyof typeof EMPTY, label: string, input: ReactNode, hint?: string) => (
    <div className="stack" style={{ gap: 4 }}>
      <label htmlFor={`member-${name}`}>{label}</label>
      {input}
      {hint ? <span className="muted" style={{ fontSize: "0.85em" }}>{hint}</span> : null}
      {errors[name] ? (
        <span id={`member-${name}-error`} className="field-error">
          {errors[name]}
        </span>
      ) : null}
    </div>
  );
  const describedBy = (name: string) => (errors[name] ? { "aria-invalid": true, "aria-describedby": `member-${name}-error` } : {});

  return (
    <form onSubmit={submit} className="stack" aria-labelledby="add-member-title" noValidate>
      <h3 id="add-member-title" style={{ margin: "8px 0 0", fontSize: "1em" }}>
        Add a member
      </h3>
      <div style={{ display: "grid", gap: 12, gridTemplateColumns: "repeat(auto-fit, minmax(200px, 1fr))" }}>
        {field("email", "Email", <input id="member-email" type="email" autoComplete="off" value={values.email} onChange={set("email")} {...describedBy("email")} />)}
        {field(
          "role",
          "Role",
          <select id="member-role" value={values.role} onChange={set("role")}>
            {ROLES.map((r) => (
              <option key={r} value={r}>
                {r}
              </option>
            ))}
          </select>,
        )}
        {field("name", "Name (new account)", <input id="member-name" autoComplete="off" value={values.name} onChange={set("name")} {...describedBy("name")} />)}
        {field(
          "password",
          "Password (new account)",
          <input id="member-password" type="password" autoComplete="new-password" value={values.password} onChange={set("password")} {...describedBy("password")} />,
          "Leave empty to add someone who already has an account.",
        )}
      </div>
      <div className="row">
        <button type="submit" className="primary" disabled={add.isPending}>
          {add.isPending ? "Adding…" : "Add member"}
        </button>
      </div>
      {add.error ? <ErrorState error={add.error} /> : null}
    </form>
  );
}
