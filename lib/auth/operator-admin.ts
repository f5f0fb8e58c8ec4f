import { env } from "../env";
import { AppError } from "../server/app-error";
import { services } from "../server/composition-root";
import { requireSameOrigin } from "./origin-check";
import { projectRole, sessionUser } from "./operator-session";
import { roleAllows } from "./roles";

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

/**
 * The policy API (app/api/v1/admin/**, `auth: "admin"` in with-api-route.ts) for a signed-in
 * operator: admin role in the path's project, and this site's Origin on changes — the same rules
 * as the operator API. Null when the request carries no session at all.
 */
export async function sessionAdmin(req: Request, params: Record<string, string | string[]>): Promise<{ id: string; email: string } | null> {
  const operators = services().operators;
  const user = await sessionUser(operators.auth, operators.store, req.headers);
  if (!user) return null;
  if (!SAFE_METHODS.has(req.method)) requireSameOrigin(req, env().BETTER_AUTH_URL);
  const projectId = typeof params.projectId === "string" ? params.projectId : "";
  const role = projectId ? await projectRole(operators.store, services().gate.store, user, projectId) : null;
  if (!role) throw new AppError("not_found", `no project ${projectId}`);
  if (!roleAllows(role, "admin")) throw new AppError("forbidden", `policies need the admin role in ${projectId}; you are ${role}`);
  return { id: user.id, email: user.email };
}
