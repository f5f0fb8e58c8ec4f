import type { OperatorQueueRepository, AcceptedRow, UncheckedCallRow, VerifyTallyRow } from "../store/prisma/operator-queue-repository";
import type { RunSaga, SagaService } from "./sagas/saga-service";

export interface OperatorQueueView {
  runs: RunSaga[];
  uncheckedCalls: UncheckedCallRow[];
  accepted: AcceptedRow[];
  verify: VerifyTallyRow;
}

/** What waits for a human: runs whose undo stopped, unknown status checks, unfinished operations; and the verify tally. */
export class OperatorQueue {
  constructor(
    private readonly repository: OperatorQueueRepository,
    private readonly sagas: () => SagaService,
  ) {}

  async view(projectId: string, limit = 50): Promise<OperatorQueueView> {
    const [runs, uncheckedCalls, accepted, verify] = await Promise.all([
      this.sagas().needingAttention(projectId, limit),
      this.repository.uncheckedCalls(projectId, limit),
      this.repository.acceptedRecords(projectId, limit),
      this.repository.verifyTally(projectId),
    ]);
    return { runs, uncheckedCalls, accepted, verify };
  }
}
