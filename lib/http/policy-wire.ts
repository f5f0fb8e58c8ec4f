import type { PolicyListResponse, PolicyRevision, SimulateResponse, ToolSummary } from "../contract/admin-policies";
import type { Simulation } from "../server/policies/policy-simulator";
import type { Revision, ToolEntry } from "../server/policies/policy-service";

const iso = (ms: number): string => new Date(ms).toISOString();
const isoOrNull = (ms: number | null): string | null => (ms === null ? null : iso(ms));

/** Policy domain objects carry epoch ms; the wire carries ISO 8601. */
export function toWireToolList(projectId: string, list: { trafficSince: number; tools: ToolEntry[] }): PolicyListResponse {
  return { projectId, trafficSince: iso(list.trafficSince), tools: list.tools.map(toWireTool) };
}

function toWireTool(entry: ToolEntry): ToolSummary {
  return { ...entry, firstSeenAt: isoOrNull(entry.firstSeenAt), updatedAt: isoOrNull(entry.updatedAt) };
}

export function toWireRevision(revision: Revision): PolicyRevision {
  return { ...revision, at: iso(revision.at) };
}

export function toWireSimulation(simulation: Simulation): SimulateResponse {
  return { ...simulation, from: isoOrNull(simulation.from), to: isoOrNull(simulation.to) };
}
