import { openStore } from "../../lib/store/hot/open-gate-store";
import { createProjectWithKey } from "../../lib/server/operators/projects";
import type { GateEvent } from "../../lib/store/ports/gate-store";

export interface TestProject {
  projectId: string;
  apiKey: string;
}

/** A fresh project with its own API key, written straight into the database under test. */
export async function createTestProject(databaseUrl: string, name = "test project"): Promise<TestProject> {
  const store = openStore({ databaseUrl });
  try {
    const created = await createProjectWithKey(store, name);
    if (!created) throw new Error("project id collision");
    return { projectId: created.projectId, apiKey: created.apiKey.key };
  } finally {
    await store.close();
  }
}

/**
 * A call's ledger, read on a connection of the test's own. A server writes decision-only events
 * (replay, in_progress, refused, blocked, …) behind its answer, within a few milliseconds: a test
 * that looks for one passes `until`, and the read is repeated until it holds (or the budget is
 * spent, and the last read is returned for the test's assertion to show).
 */
export async function eventsForCall(
  databaseUrl: string,
  projectId: string,
  callId: string,
  options: { until?: (events: GateEvent[]) => boolean; budgetMs?: number } = {},
): Promise<GateEvent[]> {
  const store = openStore({ databaseUrl });
  try {
    const deadline = Date.now() + (options.budgetMs ?? 15_000);
    for (;;) {
      const events = await store.listEventsForCall(projectId, callId);
      if (!options.until || options.until(events) || Date.now() > deadline) return events;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  } finally {
    await store.close();
  }
}

/** `until` for eventsForCall: the ledger holds at least `n` begin events with this decision. */
export const hasBegins =
  (decision: string, n = 1) =>
  (events: GateEvent[]): boolean =>
    events.filter((e) => e.type === "begin" && e.decision === decision).length >= n;
