import type { Db } from "../../store/prisma/client";
import { PrismaOutboundAllowlistRepository } from "../../store/prisma/outbound-allowlist-repository";
import { OutboundAllowlistService } from "./allowlist-service";
import { OutboundGuard } from "./outbound-fetch";
import { GATEWAY_ROW_TTL_MS, ShortCache } from "../short-cache";

export interface Outbound {
  allowlist: OutboundAllowlistService;
  guard: OutboundGuard;
}

/** The project allowlist and the guard every outbound call goes through (built once, in lib/server/composition-root.ts). */
export function createOutbound(db: Db): Outbound {
  // Kept a second per project: an entry an admin removes stops admitting at once on the instance
  // that removed it, and within a second on every other (a Prisma read per call was a third of the
  // MCP gateway's added latency).
  const patterns = new ShortCache<string[]>(GATEWAY_ROW_TTL_MS);
  const allowlist = new OutboundAllowlistService(new PrismaOutboundAllowlistRepository(db), Date.now, (projectId) => patterns.forget(projectId));
  const guard = new OutboundGuard((projectId) => patterns.get(projectId, async () => (await allowlist.list(projectId)).map((row) => row.pattern)));
  return { allowlist, guard };
}
