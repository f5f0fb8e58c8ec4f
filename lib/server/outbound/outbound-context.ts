import type { Db } from "../../store/prisma/client";
import { PrismaOutboundAllowlistRepository } from "../../store/prisma/outbound-allowlist-repository";
import { OutboundAllowlistService } from "./allowlist-service";
import { OutboundGuard } from "./outbound-fetch";

export interface Outbound {
  allowlist: OutboundAllowlistService;
  guard: OutboundGuard;
}

/** The project allowlist and the guard every outbound call goes through (built once, in lib/server/composition-root.ts). */
export function createOutbound(db: Db): Outbound {
  // Read on every outbound call, not cached: an entry an admin removes stops admitting at once on
  // every instance (a security change outranks the read it costs the MCP gateway per execute).
  const allowlist = new OutboundAllowlistService(new PrismaOutboundAllowlistRepository(db), Date.now);
  const guard = new OutboundGuard(async (projectId) => (await allowlist.list(projectId)).map((row) => row.pattern));
  return { allowlist, guard };
}
