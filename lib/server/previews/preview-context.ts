import { env } from "../../env";
import { openPrismaClient } from "../../store/prisma/open-prisma-client";
import { PreviewRepository } from "../../store/prisma/preview-repository";
import { getGate } from "../gate";
import { PreviewService } from "./preview-service";

const holder = globalThis as unknown as { __idemgatePreviews?: PreviewService };

/** The process's preview service (moves into lib/server/composition-root.ts once that exists). */
export function getPreviews(): PreviewService {
  if (!holder.__idemgatePreviews) {
    const config = env();
    const prisma = openPrismaClient(config.DATABASE_URL, { sqliteBusyTimeoutMs: config.IDEMGATE_SQLITE_BUSY_TIMEOUT_MS });
    holder.__idemgatePreviews = new PreviewService(new PreviewRepository(prisma), getGate().service);
  }
  return holder.__idemgatePreviews;
}
