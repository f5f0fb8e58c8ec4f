import { AppError } from "../app-error";

/** Whether a project has seen a run id (lib/store/prisma/known-runs-repository.ts). */
export interface RunLookup {
  exists(projectId: string, runId: string): Promise<boolean>;
}

/**
 * A run id belongs to the project whose calls used it. Every route that names a run (its budget,
 * its compensation, an abort) asks here first: a run id no call of this project used, another
 * project's included, is 404 like any other id of another project, and nothing is recorded for it.
 */
export class KnownRuns {
  constructor(private readonly lookup: RunLookup) {}

  async require(projectId: string, runId: string): Promise<void> {
    if (!(await this.lookup.exists(projectId, runId))) throw new AppError("not_found", `no run ${runId} in this project`);
  }
}
