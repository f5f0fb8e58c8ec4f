import { OperatorPreviewSchema, PreviewListSchema } from "../../lib/contract/previews";
import { type Gate, createGate } from "../../lib/sdk";
import { AdminClient } from "./admin-client";
import { createTestProject } from "./fixtures";
import { OperatorClient, ROOT, createOperator } from "./operator-client";
import { sharedServer } from "./shared-server";
import type { SharedServerInfo } from "./shared-servers-setup";

/**
 * A project of its own on the run's shared SQLite server with an operator signed in, for the
 * framework adapters' tests: each `gate()` is a fresh client, as a restarted agent process would have.
 */
export class AdapterWorld {
  private constructor(
    readonly server: SharedServerInfo,
    readonly apiKey: string,
    readonly projectId: string,
    readonly admin: AdminClient,
    readonly operator: OperatorClient,
  ) {}

  static async start(): Promise<AdapterWorld> {
    const server = await sharedServer("sqlite");
    const { projectId, apiKey } = await createTestProject(server.databaseUrl);
    const root = await OperatorClient.signIn(server.baseUrl, ROOT.email, ROOT.password);
    const operator = await createOperator(root, projectId, "operator");
    return new AdapterWorld(server, apiKey, projectId, new AdminClient(server.baseUrl, projectId), operator);
  }

  gate(): Gate {
    return createGate({ baseUrl: this.server.baseUrl, apiKey: this.apiKey });
  }

  /** The run's preview waiting in the operators' inbox (waits for it to appear). */
  async pendingPreview(runId: string) {
    for (let i = 0; i < 600; i++) {
      const list = await this.operator.call(PreviewListSchema, "GET", this.operator.p(this.projectId, "/previews?status=pending"));
      const found = list.previews.find((p) => p.runId === runId);
      if (found) return found;
      await sleep(50);
    }
    throw new Error(`no pending preview for run ${runId}`);
  }

  /** All previews the run posted, whatever their state. */
  async previewsOf(runId: string) {
    const list = await this.operator.call(PreviewListSchema, "GET", this.operator.p(this.projectId, "/previews?limit=200"));
    return list.previews.filter((p) => p.runId === runId);
  }

  decide(previewId: string, approve: boolean, note: string) {
    return this.operator.call(OperatorPreviewSchema, "POST", this.operator.p(this.projectId, `/previews/${previewId}/${approve ? "approve" : "deny"}`), { note });
  }

  /** The shared server outlives the file. */
  async stop(): Promise<void> {}
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Waits for a condition with a generous budget (never a wall-clock guess). */
export async function waitFor(what: string, condition: () => boolean, budgetMs = 60_000): Promise<void> {
  const deadline = Date.now() + budgetMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

/** A downstream system whose side effects are counted, per entity. */
export class Backend {
  readonly effects: string[] = [];
  /** Executions started and not yet finished (a timed-out call goes on in the background). */
  inFlight = 0;

  async act<T>(entity: string, delayMs: number, result: () => T): Promise<T> {
    this.inFlight++;
    try {
      if (delayMs > 0) await sleep(delayMs);
      this.effects.push(entity);
      return result();
    } finally {
      this.inFlight--;
    }
  }

  count(entity?: string): number {
    return entity === undefined ? this.effects.length : this.effects.filter((e) => e === entity).length;
  }
}
