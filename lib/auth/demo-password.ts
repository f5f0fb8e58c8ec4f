import proxyaddr from "proxy-addr";
import { hostName, isLoopbackHostName } from "../http/host-guard.mjs";
import type { OperatorStore } from "../store/ports/operator-store";
import type { Auth } from "./auth";

/** Documented demo credentials (README): used only when the demo is seeded and no ADMIN_EMAIL is set. */
export const DEMO_ADMIN_EMAIL = "admin@idemgate.local";
export const DEMO_ADMIN_PASSWORD = "idemgate-demo-admin";

const isLoopback = proxyaddr.compile("loopback");

export const DEMO_LOCAL_ONLY_NOTICE =
  `the demo password signs in only from this machine (localhost): set ADMIN_EMAIL and ADMIN_PASSWORD, ` +
  `or change the demo admin's password, to sign in from elsewhere`;

/**
 * Everyone who read the README knows the demo password, so it only works from the machine the
 * gate runs on: a newcomer's laptop serving on every interface does not hand out an admin login
 * to its network. Any other password (a changed one, a real admin's) signs in from anywhere.
 * The page must also have addressed the server by a loopback name (`Host`): a loopback client
 * that calls it by another name is a browser a foreign page has rebound (DNS rebinding), or a
 * proxy forwarding someone else.
 */
export function demoPasswordRefused(email: string, password: string, clientIp: string | null, host: string | null): boolean {
  if (password !== DEMO_ADMIN_PASSWORD || email.trim().toLowerCase() !== DEMO_ADMIN_EMAIL) return false;
  if (clientIp === null || !isLoopback(clientIp, 0)) return true;
  const name = hostName(host);
  return name === null || !isLoopbackHostName(name);
}

/** Whether the demo admin still has the demo password (said in the log at every start while it does). */
export async function demoPasswordActive(auth: Auth, store: OperatorStore): Promise<boolean> {
  const user = await store.findUserByEmail(DEMO_ADMIN_EMAIL);
  if (!user) return false;
  const context = await auth.$context;
  const accounts = await context.internalAdapter.findAccounts(user.id);
  const hash = accounts.find((account) => account.providerId === "credential")?.password;
  return hash ? context.password.verify({ hash, password: DEMO_ADMIN_PASSWORD }) : false;
}
