import { KeepAliveClient } from "../http-client";
import { CLIENTS, type Subject } from "./types";

interface RouteFloor {
  id: string;
  label: string;
  baseUrl: string;
  path: string;
  /** Stops what serves the route, if the subject owns it. */
  stop?(): Promise<void>;
}

/**
 * A framework floor: a GET that touches no database and no auth. A fresh pair over HTTP is two
 * requests, so its floor operation is two requests too; a replay is one request against one.
 */
function routeFloorSubject(floor: RouteFloor): Subject {
  const client = new KeepAliveClient(floor.baseUrl);
  const get = async () => {
    const res = await client.get(floor.path);
    if (res.status !== 200 || res.body?.ok !== true) throw new Error(`${floor.path} answered ${res.status}`);
  };
  return {
    id: floor.id,
    group: "floor",
    label: floor.label,
    workloads: [
      {
        name: "fresh",
        unit: "2 requests",
        clients: [...CLIENTS.standard],
        op: async () => {
          await get();
          await get();
        },
      },
      { name: "replay", unit: "requests", clients: [...CLIENTS.standard], op: get },
    ],
    close: async () => {
      await client.close();
      await floor.stop?.();
    },
  };
}

/** GET /api/livez on the same `next start` the gate cells use. */
export const nextFloorSubject = (baseUrl: string): Subject =>
  routeFloorSubject({ id: "floor.next", label: "bare Next route (GET /api/livez, npm start's server)", baseUrl, path: "/api/livez" });

/** A JSON route on plain node:http in its own process: what a lean serving path is measured against. */
export const nodeHttpFloorSubject = (server: { baseUrl: string; stop(): Promise<void> }): Subject =>
  routeFloorSubject({ id: "floor.node-http", label: "bare node:http JSON route (own process)", baseUrl: server.baseUrl, path: "/livez", stop: () => server.stop() });
