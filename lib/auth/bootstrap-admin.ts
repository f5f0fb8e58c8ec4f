import { AppError } from "../server/app-error";
import { SYSTEM_ACTOR, auditEntry } from "../server/operators/operator-audit";
import type { CreateUser } from "../server/operators/operator-members";
import type { OperatorStore } from "../store/ports/operator-store";
import { DEMO_ADMIN_EMAIL, DEMO_ADMIN_PASSWORD } from "./demo-password";


interface BootstrapDeps {
  store: OperatorStore;
  createUser: CreateUser;
}

export interface BootstrapConfig {
  adminEmail?: string;
  adminPassword?: string;
  seedDemo: boolean;
}

/**
 * The first operator. ADMIN_EMAIL/ADMIN_PASSWORD: that account is created if missing and made an
 * instance admin (admin of every project). Without them, a seeded demo gets the documented demo
 * admin — only while no account exists at all — and says so loudly.
 */
export async function bootstrapAdmin(ops: BootstrapDeps, config: BootstrapConfig): Promise<void> {
  if (config.adminEmail) {
    if (!config.adminPassword) {
      console.warn("[idemgate] ADMIN_EMAIL is set without ADMIN_PASSWORD: no admin account created");
      return;
    }
    await ensureAdmin(ops, config.adminEmail.toLowerCase(), config.adminPassword);
    return;
  }
  if (!config.seedDemo) {
    if ((await ops.store.countUsers()) === 0) console.log("[idemgate] no operator accounts yet: set ADMIN_EMAIL and ADMIN_PASSWORD to create the first admin");
    return;
  }
  if ((await ops.store.countUsers()) > 0) return;
  await ensureAdmin(ops, DEMO_ADMIN_EMAIL, DEMO_ADMIN_PASSWORD);
  console.warn(
    [
      "",
      "  ************************************************************************",
      "  Idemgate: created the DEMO operator account — anyone who reads the README",
      "  can sign in with it. Set ADMIN_EMAIL and ADMIN_PASSWORD for real use.",
      `    sign in at /sign-in as ${DEMO_ADMIN_EMAIL} / ${DEMO_ADMIN_PASSWORD}`,
      "  It works from this machine (localhost) only.",
      "  ************************************************************************",
      "",
    ].join("\n"),
  );
}

async function ensureAdmin(ops: BootstrapDeps, email: string, password: string): Promise<void> {
  let user = await ops.store.findUserByEmail(email);
  if (!user) {
    try {
      const id = await ops.createUser({ email, password, name: "Admin" });
      await ops.store.appendAudit(auditEntry(SYSTEM_ACTOR, null, "user.created", { type: "user", id }, { email, instanceAdmin: true }, Date.now()));
      console.log(`[idemgate] created the admin account ${email}`);
    } catch (error) {
      // Another instance starting at the same moment created it first: better-auth's own check
      // says so, or, when both passed that check, the database's unique email index refuses the
      // second insert (a driver error, not an "already exists"). Either way the account is there.
      user = await ops.store.findUserByEmail(email);
      if (!user && !(error instanceof AppError && error.code === "already_exists")) throw error;
    }
    user ??= await ops.store.findUserByEmail(email);
  }
  if (user && !user.instanceAdmin) await ops.store.setInstanceAdmin(user.id);
}
