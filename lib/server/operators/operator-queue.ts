import type { OperatorQueueRepository, AcceptedRow, UncheckedCallRow, VerifyTallyRow } from "../../store/prisma/operator-queue-repository";
import type { TimeRange } from "../../core/buckets";
import type { RunSaga, SagaService } from "../multistep/saga-service";

export interface OperatorQueueView {
  runs: RunSaga[];
  uncheckedCalls: UncheckedCallRow[];
  accepted: AcceptedRow[];
  verify: VerifyTallyRow & TimeRange;
}

/** Unknown status checks older than this are not looked for (their records have long lapsed or been resolved). */
export const UNCHECKED_LOOKBACK_MS = 7 * 86_400_000;

/** What waits for a human: runs whose undo stopped, unknown status checks, unfinished operations; and the verify tally. */
export class OperatorQueue {
  constructor(
    private readonly repository: OperatorQueueRepository,
    private readonly sagas: () => SagaService,
    private readonly clock: () => number = Date.now,
  ) {}

  /** `range`: what the verify tally counts. */
  async view(projectId: string, range: TimeRange, limit = 50): Promise<OperatorQueueView> {
    const [runs, uncheckedCalls, accepted, verify] = await Promise.all([
      this.sagas().needingAttention(projectId, limit),
      this.repository.uncheckedCalls(projectId, this.clock() - UNCHECKED_LOOKBACK_MS, limit),
      this.repository.acceptedRecords(projectId, limit),
      this.repository.verifyTally(projectId, range.from, range.to),
    ]);
    return { runs, uncheckedCalls, accepted, verify: { ...verify, ...range } };
  }
}
