import { env } from "../../env";
import { type AppPrismaClient, openPrismaClient } from "../../store/prisma/open-prisma-client";
import { PrismaOutboundAllowlistRepository } from "../../store/prisma/outbound-allowlist-repository";
import { OutboundAllowlistService } from "./allowlist-service";
import { type OutboundInit, OutboundGuard } from "./outbound-fetch";
import type { OutboundTarget } from "./outbound-rules";
import { pgTimeoutsFrom } from "../pg-timeouts";

export interface Outbound {
  prisma: AppPrismaClient;
  allowlist: OutboundAllowlistService;
  guard: OutboundGuard;
}

const holder = globalThis as unknown as { __idemgateOutbound?: Outbound };

export function createOutbound(prisma: AppPrismaClient): Outbound {
  const allowlist = new OutboundAllowlistService(new PrismaOutboundAllowlistRepository(prisma));
  // Read per call (one indexed query): an entry an admin removes stops admitting at once, on every instance.
  const guard = new OutboundGuard(async (projectId) => (await allowlist.list(projectId)).map((row) => row.pattern));
  return { prisma, allowlist, guard };
}

export function getOutbound(): Outbound {
  if (!holder.__idemgateOutbound) {
    const config = env();
    holder.__idemgateOutbound = createOutbound(openPrismaClient(config.DATABASE_URL, { sqliteBusyTimeoutMs: config.IDEMGATE_SQLITE_BUSY_TIMEOUT_MS, pgTimeouts: pgTimeoutsFrom(config) }));
  }
  return holder.__idemgateOutbound;
}

/** Throws OutboundRefusedError unless the project's allowlist admits the URL (the address is checked again at connect time). */
export function assertOutboundAllowed(projectId: string, url: string | URL): Promise<OutboundTarget> {
  return getOutbound().guard.assertAllowed(projectId, url);
}

/** fetch, through the project's allowlist: see OutboundGuard. */
export function outboundFetch(projectId: string, url: string | URL, init?: OutboundInit): Promise<Response> {
  return getOutbound().guard.fetch(projectId, url, init);
}
