import { env } from "../../env";
import { openPrismaClient } from "../../store/prisma/open-prisma-client";
import { RunAbortRepository } from "../../store/prisma/run-abort-repository";
import { getGate } from "../gate";
import { getOperators } from "../operator-context";
import { SagaService } from "./saga-service";

const holder = globalThis as unknown as { __idemgateSagas?: SagaService };

/** The process's saga service (moves into lib/server/composition-root.ts once that exists). */
export function getSagas(): SagaService {
  if (!holder.__idemgateSagas) {
    const config = env();
    const prisma = openPrismaClient(config.DATABASE_URL, { sqliteBusyTimeoutMs: config.IDEMGATE_SQLITE_BUSY_TIMEOUT_MS });
    holder.__idemgateSagas = new SagaService(
      new RunAbortRepository(prisma),
      getGate().service,
      () => getOperators().store,
      () => getOperators().records,
    );
  }
  return holder.__idemgateSagas;
}
