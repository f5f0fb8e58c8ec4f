import { type Gate, createGate } from "../../lib/sdk";
import type { GateStore } from "../../lib/store/ports/gate-store";
import { benchPolicies } from "./bench-policy";
import { type CallCoordinates, CLIENTS, type Subject, freshCall, replayCall } from "./types";

const TOOL = "charge_card";
const tool = async () => ({ ok: true });

/** One `gate.call` — begin, run the tool on execute, complete — checked against what it must do. */
export async function gateCall(gate: Gate, call: CallCoordinates, expected: "executed" | "replayed"): Promise<void> {
  const result = await gate.call({ tool: TOOL, runId: call.runId, step: call.step, args: call.args }, tool);
  if (result.status !== expected) throw new Error(`gate.call ${call.runId}/${call.step}: expected ${expected}, got ${JSON.stringify(result).slice(0, 300)}`);
}

/** The completed calls a replay workload reads (untimed), sixteen at a time. */
export async function fillReplayPool(gate: Gate, tag: string, size: number): Promise<void> {
  for (let i = 0; i < size; i += 16) {
    await Promise.all(Array.from({ length: Math.min(16, size - i) }, (_, j) => gateCall(gate, replayCall(tag, i + j, size), "executed")));
  }
}

export interface InProcessOptions {
  id: string;
  label: string;
  floorId: string;
  store: GateStore;
  projectId: string;
  replayPool: number;
}

/**
 * The gate embedded in the agent's process through the SDK's in-process mode, with the SDK's
 * defaults (built-in policies — loops flagged, see bench-policy.ts — heartbeats on): a fresh operation is one `gate.call` that executes
 * (begin + the tool + complete), a replay one `gate.call` answered from the stored outcome — the
 * same unit as the peer's `makeIdempotent` function call.
 */
export function inProcessSubject(options: InProcessOptions): Subject {
  const gate = createGate({ inProcess: { store: options.store, projectId: options.projectId, policies: benchPolicies } });
  const poolTag = `${options.id}_pool`;
  return {
    id: options.id,
    group: "inprocess",
    label: options.label,
    floorId: options.floorId,
    workloads: [
      { name: "fresh", unit: "pairs", clients: [...CLIENTS.withEight], op: (seq, tag) => gateCall(gate, freshCall(tag, seq), "executed") },
      {
        name: "replay",
        unit: "calls",
        clients: [...CLIENTS.standard],
        prepare: () => fillReplayPool(gate, poolTag, options.replayPool),
        op: (seq) => gateCall(gate, replayCall(poolTag, seq, options.replayPool), "replayed"),
      },
    ],
    close: () => options.store.close(),
  };
}
