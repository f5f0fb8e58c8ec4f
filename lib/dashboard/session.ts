// Server components only: reads the session cookie.
import { headers } from "next/headers";
import { projectRole, sessionUser } from "../auth/operator-session";
import type { MemberRole } from "../store/ports/operator-store";
import { services } from "../server/composition-root";

/** The seeded demo project (lib/server/boot.ts): an instance admin without memberships lands there. */
const DEMO_PROJECT_ID = "proj_demo";

export interface DashboardUser {
  id: string;
  email: string;
  name: string;
  instanceAdmin: boolean;
  projects: { projectId: string; role: MemberRole }[];
}

/** The signed-in operator for a dashboard page (server components), or null. */
export async function dashboardUser(): Promise<DashboardUser | null> {
  const operators = services().operators;
  const user = await sessionUser(operators.auth, operators.store, await headers());
  if (!user) return null;
  const projects = await operators.store.listMemberships(user.id);
  if (user.instanceAdmin && !projects.some((p) => p.projectId === DEMO_PROJECT_ID) && (await services().gate.store.projectExists(DEMO_PROJECT_ID))) {
    projects.push({ projectId: DEMO_PROJECT_ID, role: "admin" });
  }
  return { id: user.id, email: user.email, name: user.name, instanceAdmin: user.instanceAdmin, projects };
}

/** The operator's role in a project (instance admins: admin anywhere), or null = 404. */
export async function dashboardRole(projectId: string): Promise<MemberRole | null> {
  const operators = services().operators;
  const user = await sessionUser(operators.auth, operators.store, await headers());
  if (!user) return null;
  return projectRole(operators.store, services().gate.store, user, projectId);
}
