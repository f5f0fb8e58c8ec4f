import type { GateStore } from "../store/ports/gate-store";
import type { MemberRole, OperatorStore, UserRow } from "../store/ports/operator-store";
import type { Auth } from "./auth";

/** The signed-in operator behind a request's session cookie, or null. */
export async function sessionUser(auth: Auth, store: OperatorStore, headers: Headers): Promise<UserRow | null> {
  const session = await auth.api.getSession({ headers });
  if (!session) return null;
  // Read the flag from our table, not the session's copy: granted or withdrawn, it applies at once.
  return store.findUserById(session.user.id);
}

/**
 * The operator's role in a project: their membership's, or admin for an instance admin. Null
 * when they have none there, or the project does not exist — the caller answers 404 for both, so
 * a project id never confirms that someone else's project exists.
 */
export async function projectRole(store: OperatorStore, gate: GateStore, user: UserRow, projectId: string): Promise<MemberRole | null> {
  if (user.instanceAdmin) return (await gate.projectExists(projectId)) ? "admin" : null;
  return (await store.findMember(projectId, user.id))?.role ?? null;
}
