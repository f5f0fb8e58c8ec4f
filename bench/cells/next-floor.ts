import { KeepAliveClient } from "../http-client";
import { CLIENTS, type Subject } from "./types";

/**
 * The framework floor: GET /api/livez, a route handler with no database and no auth, on the same
 * `next start` the gate cells use. A fresh pair over HTTP is two requests, so its floor operation
 * is two requests too; a replay is one request against one.
 */
export function nextFloorSubject(baseUrl: string): Subject {
  const client = new KeepAliveClient(baseUrl);
  const livez = async () => {
    const res = await client.get("/api/livez");
    if (res.status !== 200 || res.body?.ok !== true) throw new Error(`livez answered ${res.status}`);
  };
  return {
    id: "floor.next",
    group: "floor",
    label: "bare Next route (GET /api/livez, next start)",
    workloads: [
      {
        name: "fresh",
        unit: "2 requests",
        clients: [...CLIENTS.standard],
        op: async () => {
          await livez();
          await livez();
        },
      },
      { name: "replay", unit: "requests", clients: [...CLIENTS.standard], op: livez },
    ],
    close: async () => client.close(),
  };
}
