import http from "node:http";
import { beforeAll, describe, expect, it } from "vitest";
import { sharedServer } from "../helpers/shared-server";
import type { SharedServerInfo } from "../helpers/shared-servers-setup";

function get(server: { baseUrl: string }, agent: http.Agent): Promise<{ status: number; reused: boolean; keepAlive: string | undefined }> {
  const { port } = new URL(server.baseUrl);
  return new Promise((resolve, reject) => {
    const req = http.get({ host: "127.0.0.1", port, path: "/api/livez", agent }, (res) => {
      res.resume();
      res.on("end", () => resolve({ status: res.statusCode ?? 0, reused: req.reusedSocket, keepAlive: [res.headers["keep-alive"]].flat().join(",") }));
    });
    req.on("error", reject);
  });
}

/**
 * Issue #36 §2: the server closed idle keep-alive connections (Node's 5 s) while clients reused
 * them, and a loaded CI run failed with "other side closed". The server now outlasts its clients.
 */
describe("the server's keep-alive outlasts its clients'", () => {
  // The run's shared server: nothing here restarts it or looks beyond its own projects.
  let server: SharedServerInfo;
  beforeAll(async () => {
    server = await sharedServer("sqlite");
  });
  it("announces a keep-alive longer than any client's idle, and a connection idle past Node's default 5 s is still served", async () => {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const first = await get(server, agent);
      expect(first.status).toBe(200);
      expect(Number(/timeout=(\d+)/.exec(first.keepAlive ?? "")?.[1])).toBeGreaterThanOrEqual(60);
      await new Promise((resolve) => setTimeout(resolve, 6_000));
      const second = await get(server, agent);
      expect(second).toMatchObject({ status: 200, reused: true });
    } finally {
      agent.destroy();
    }
  });
});
