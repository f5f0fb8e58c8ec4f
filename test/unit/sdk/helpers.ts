import { copyFileSync, mkdtempSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { randomBytes } from "node:crypto";
import { DEFAULT_POLICY, type ToolPolicy } from "../../../lib/core/policy";
import { type CreateGateOptions, type Gate, createGate } from "../../../lib/sdk";
import { InProcessTransport } from "../../../lib/sdk/in-process-transport";
import type { GateTransport } from "../../../lib/sdk/types";
import { parseDatabaseUrl } from "../../../lib/store/connection/database-url";
import { ensureMigrated } from "../../../lib/store/connection/migrate";
import { openStore } from "../../../lib/store/hot/open-gate-store";
import type { GateStore } from "../../../lib/store/ports/gate-store";
import { createProjectWithKey } from "../../../lib/server/projects";
import type { PolicySource } from "../../../lib/server/policy-source";

let template: Promise<string> | undefined;

/** One migrated SQLite file per test worker; every gate gets a copy (a real database, no mocks). */
function migratedTemplate(): Promise<string> {
  template ??= (async () => {
    const file = path.join(mkdtempSync(path.join(os.tmpdir(), "idemgate-sdk-")), "template.db");
    await ensureMigrated(parseDatabaseUrl(`file:${file}`));
    return file;
  })();
  return template;
}

/** A policy source for every tool: the engine's defaults with these overrides (a real PolicySource). */
export function policies(overrides: Partial<ToolPolicy> = {}): PolicySource {
  return { forTool: async () => ({ policy: { ...DEFAULT_POLICY, ...overrides }, version: 1 }) };
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
  const file = path.join(path.dirname(await migratedTemplate()), `gate_${randomBytes(6).toString("hex")}.db`);
  copyFileSync(await migratedTemplate(), file);
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
