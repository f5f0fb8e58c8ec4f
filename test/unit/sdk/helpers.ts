import { type ToolPolicy, builtinPolicyFor } from "../../../lib/core/policy";
import { type CreateGateOptions, type Gate, createGate } from "../../../lib/sdk";
import { InProcessTransport } from "../../../lib/sdk/in-process-transport";
import type { GateTransport } from "../../../lib/sdk/types";
import { openStore } from "../../../lib/store/hot/open-gate-store";
import type { GateStore } from "../../../lib/store/ports/gate-store";
import { createProjectWithKey } from "../../../lib/server/operators/projects";
import type { PolicySource } from "../../../lib/server/policies/policy-source";
import { migratedSqliteFile } from "../../helpers/migrated-sqlite";

/** A policy source for every tool: the engine's defaults (an HTTP route's for a route) with these overrides (a real PolicySource). */
export function policies(overrides: Partial<ToolPolicy> = {}): PolicySource {
  return { forTool: async (_projectId, tool) => ({ policy: { ...builtinPolicyFor(tool), ...overrides }, version: 1 }) };
}

export interface TestGate {
  gate: Gate;
  transport: InProcessTransport;
  store: GateStore;
  projectId: string;
  /** Another client on the same gate (a second agent process, say). */
  client(options?: Partial<CreateGateOptions>, wrap?: (t: GateTransport) => GateTransport): Gate;
  close(): Promise<void>;
}

/** The real engine in process over a fresh SQLite file. */
export async function inProcessGate(
  options: { policy?: Partial<ToolPolicy>; client?: Partial<CreateGateOptions>; wrap?: (t: GateTransport) => GateTransport } = {},
): Promise<TestGate> {
  // Every gate gets a copy of one migrated file (a real database, no mocks).
  const file = await migratedSqliteFile("gate");
  const store = openStore({ databaseUrl: `file:${file}`, sqliteSynchronous: "normal" });
  const project = await createProjectWithKey(store, "sdk tests");
  if (!project) throw new Error("project id collision");
  const transport = new InProcessTransport({ store, projectId: project.projectId, policies: policies(options.policy) });
  const client = (clientOptions: Partial<CreateGateOptions> = {}, wrap?: (t: GateTransport) => GateTransport) =>
    createGate({ waitMs: 2_000, ...clientOptions, transport: wrap ? wrap(transport) : transport } as CreateGateOptions);
  return {
    gate: client(options.client, options.wrap),
    transport,
    store,
    projectId: project.projectId,
    client,
    close: () => store.close(),
  };
}

export const delay = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
