import { env } from "../../env";
import { type AppPrismaClient, openPrismaClient } from "../../store/prisma/open-prisma-client";
import { UpstreamRepository } from "../../store/prisma/upstream-repository";
import { SecretBox, resolveSecretsKey } from "./secret-box";
import { UpstreamService } from "./upstream-service";
import { pgTimeoutsFrom } from "../pg-timeouts";

export interface Upstreams {
  prisma: AppPrismaClient;
  service: UpstreamService;
}

const holder = globalThis as unknown as { __idemgateUpstreams?: Upstreams };

/** The process's upstream registry (moves into lib/server/composition-root.ts once that exists). */
export function getUpstreams(): Upstreams {
  if (!holder.__idemgateUpstreams) {
    const config = env();
    const prisma = openPrismaClient(config.DATABASE_URL, { sqliteBusyTimeoutMs: config.IDEMGATE_SQLITE_BUSY_TIMEOUT_MS, pgTimeouts: pgTimeoutsFrom(config) });
    const box = new SecretBox(resolveSecretsKey(config.IDEMGATE_SECRETS_KEY, config.IDEMGATE_DATA_DIR));
    holder.__idemgateUpstreams = { prisma, service: new UpstreamService(new UpstreamRepository(prisma), box) };
  }
  return holder.__idemgateUpstreams;
}
