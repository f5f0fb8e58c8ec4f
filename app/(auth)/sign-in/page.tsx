// GET /sign-in — anyone: the operator sign-in form; signed in, who you are, your projects and sign-out.
import type { Metadata } from "next";
import { headers } from "next/headers";
import { getOperators } from "@/lib/server/operator-context";
import { SignInForm, SignOutButton } from "./sign-in-form";

export const metadata: Metadata = { title: "Sign in · Idemgate" };
// Per request, never at build time: the build must not open the database.
export const dynamic = "force-dynamic";

export default async function SignInPage() {
  const requestHeaders = await headers();
  const operators = getOperators();
  const session = await operators.auth.api.getSession({ headers: requestHeaders });
  if (!session) {
    return (
      <main>
        <h1>Operator sign-in</h1>
        <p className="muted">Operators approve resends, evict records and manage keys. Accounts are created by an admin.</p>
        <SignInForm />
      </main>
    );
  }
  const memberships = await operators.store.listMemberships(session.user.id);
  const user = await operators.store.findUserById(session.user.id);
  return (
    <main>
      <h1>Signed in</h1>
      <p>
        {session.user.name} <span className="muted">({session.user.email})</span>
        {user?.instanceAdmin ? " — admin of every project" : null}
      </p>
      <h2>Projects</h2>
      {memberships.length === 0 ? (
        <p className="muted">No project memberships yet.</p>
      ) : (
        <div className="decisions">
          {memberships.map((m) => (
            <div key={m.projectId} style={{ display: "contents" }}>
              <code>{m.projectId}</code>
              <span className="muted">{m.role}</span>
            </div>
          ))}
        </div>
      )}
      <p>
        <a href="/dashboard">Open the dashboard</a>
      </p>
      <p className="muted">
        The operator API lives under <code>/api/v1/operator/…</code> and uses this session.
      </p>
      <SignOutButton />
    </main>
  );
}
