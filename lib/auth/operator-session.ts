import type { GateStore } from "../store/ports/gate-store";
import type { MemberRole, OperatorStore, UserRow } from "../store/ports/operator-store";
import { env } from "../env";
import type { Auth } from "./auth";

const HOUR_MS = 60 * 60 * 1000;

/**
 * The signed-in operator behind a request's session cookie, or null. Sessions slide (better-auth:
 * 8 h idle) but also end a fixed time after sign-in, however active: a stolen cookie or an
 * unattended browser does not stay signed in forever.
 */
export async function sessionUser(auth: Auth, store: OperatorStore, headers: Headers): Promise<UserRow | null> {
  const session = await auth.api.getSession({ headers });
  if (!session) return null;
  if (Date.now() - new Date(session.session.createdAt).getTime() > env().IDEMGATE_SESSION_MAX_HOURS * HOUR_MS) {
    await (await auth.$context).internalAdapter.deleteSession(session.session.token);
    return null;
  }
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
