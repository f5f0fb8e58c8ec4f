import type { GateStore } from "../../store/ports/gate-store";
import type { Db } from "../../store/prisma/client";
import { PrismaOutboundAllowlistRepository } from "../../store/prisma/outbound-allowlist-repository";
import { OutboundAllowlistService } from "./allowlist-service";
import { OutboundGuard } from "./outbound-fetch";

export interface Outbound {
  allowlist: OutboundAllowlistService;
  guard: OutboundGuard;
}

/** The project allowlist and the guard every outbound call goes through (built once, in lib/server/composition-root.ts). */
export function createOutbound(db: Db, store?: Pick<GateStore, "allowPatterns">): Outbound {
  // Read on every outbound call, not cached: an entry an admin removes stops admitting at once on
  // every instance (a security change outranks the read). The read is the hot store's one indexed
  // SELECT, not a Prisma query: it was ~10 % of an MCP execute through Prisma (issue #34 §4).
  const allowlist = new OutboundAllowlistService(new PrismaOutboundAllowlistRepository(db), Date.now);
  // Without the hot store (a test's alert worker): the same fresh read, through Prisma.
  const guard = new OutboundGuard(store ? (projectId) => store.allowPatterns(projectId) : async (projectId) => (await allowlist.list(projectId)).map((row) => row.pattern));
  return { allowlist, guard };
}
