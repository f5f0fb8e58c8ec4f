import { ResourceUpdatedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ConformanceUpstream, startConformanceUpstream } from "../helpers/conformance-upstream";
import { PROVIDERS, type TestDatabase, createTestDatabase } from "../helpers/databases";
import { createTestProject } from "../helpers/fixtures";
import { allowOutbound, gatewayClient, registerMcpUpstream } from "../helpers/mcp-clients";
import { OPERATOR_ENV, OperatorClient, ROOT } from "../helpers/operator-client";
import { type TestServer, startServer } from "../helpers/server";
import { sql } from "../helpers/sql";
import { waitFor } from "../helpers/storm-scenario";

const WATCHED = "test://watched-resource";

/**
 * resources/subscribe through the gateway delivers the upstream's updates to the subscribing
 * session, with no sticky routing: the session's GET stream is held by one instance, its
 * subscribe and unsubscribe land on the other, and both meet in the database. On Postgres (two
 * instances); on SQLite alone, one instance serves both.
 */
const provider = PROVIDERS.includes("postgres") ? "postgres" : "sqlite";

describe(`MCP gateway: resource subscriptions across instances (${provider})`, () => {
  let db: TestDatabase;
  let servers: TestServer[] = [];
  let upstream: ConformanceUpstream;
  let apiKey: string;

  beforeAll(async () => {
    upstream = await startConformanceUpstream();
    db = await createTestDatabase(provider);
    const project = await createTestProject(db.url, "subscriptions");
    apiKey = project.apiKey;
    const env = { ...OPERATOR_ENV, IDEMGATE_SECRETS_KEY: Buffer.alloc(32, 7).toString("base64") };
    servers = [await startServer(db.url, env)];
    servers.push(provider === "postgres" ? await startServer(db.url, env) : servers[0]!);
    const root = await OperatorClient.signIn(servers[0]!.baseUrl, ROOT.email, ROOT.password);
    await allowOutbound(root, project.projectId, "127.0.0.1");
    await registerMcpUpstream(root, project.projectId, "everything", upstream.url.replace("localhost", "127.0.0.1"));
  });
  afterAll(async () => {
    for (const server of new Set(servers)) await server.stop();
    await db?.drop();
    await upstream?.stop();
  });

  it("a subscribe taken by one instance brings the upstream's update onto the session's GET stream held by the other; unsubscribe reaches the upstream; the upstream client closes with the stream", async () => {
    // The listening client initializes on instance B, which then holds its GET stream.
    const listener: Client = await gatewayClient(servers[1]!.baseUrl, "everything", apiKey);
    const updates: string[] = [];
    listener.setNotificationHandler(ResourceUpdatedNotificationSchema, (notification) => void updates.push(notification.params.uri));
    expect(listener.getServerCapabilities()?.resources?.subscribe).toBe(true);
    const sessionId = (listener.transport as { sessionId?: string }).sessionId!;
    // The same session on instance A (no initialize, so no GET stream there) subscribes.
    const other: Client = await gatewayClient(servers[0]!.baseUrl, "everything", apiKey, { sessionId });
    try {
      const baseline = upstream.openStreams();
      expect(await other.subscribeResource({ uri: WATCHED })).toEqual({});
      // B reads the stored subscription, subscribes its own upstream client (its own GET stream upstream)…
      await waitFor(async () => upstream.subscribed().includes(WATCHED) && upstream.openStreams() > baseline, 60_000, "instance B to subscribe upstream");
      // …and relays what the upstream emits. Touch until one arrives (the upstream's GET stream may open just after its subscribe).
      await waitFor(async () => (await upstream.touch(WATCHED), updates.length > 0), 60_000, "a resources/updated on the GET stream");
      expect(updates[0]).toBe(WATCHED);
      const open = upstream.openStreams();

      // Unsubscribe on A: B unsubscribes its upstream client.
      expect(await other.unsubscribeResource({ uri: WATCHED })).toEqual({});
      await waitFor(async () => !upstream.subscribed().includes(WATCHED), 60_000, "the unsubscribe to reach the upstream");

      // The client goes away: B closes the upstream client it held for the stream.
      await listener.close();
      await waitFor(async () => upstream.openStreams() < open, 60_000, "the dedicated upstream client to close");
    } finally {
      await other.close();
      await listener.close();
    }
  });

  it("a session subscribes to nothing it did not ask for: another session's GET stream stays quiet, and an ended session's subscriptions go with it", async () => {
    const quiet: Client = await gatewayClient(servers[0]!.baseUrl, "everything", apiKey);
    const heard: string[] = [];
    quiet.setNotificationHandler(ResourceUpdatedNotificationSchema, (notification) => void heard.push(notification.params.uri));
    const subscriber: Client = await gatewayClient(servers[1]!.baseUrl, "everything", apiKey);
    const updates: string[] = [];
    subscriber.setNotificationHandler(ResourceUpdatedNotificationSchema, (notification) => void updates.push(notification.params.uri));
    try {
      await subscriber.subscribeResource({ uri: WATCHED });
      await waitFor(async () => (await upstream.touch(WATCHED), updates.length > 0), 60_000, "the subscriber's update");
      // The quiet session's stream has no upstream client at all: nothing reaches it.
      expect(heard).toEqual([]);
      // Ending the session (DELETE) drops its subscriptions; its stream's upstream client unsubscribes or closes.
      const sessionId = (subscriber.transport as { sessionId?: string }).sessionId!;
      const stored = () => sql<{ uri: string }>(db.url, "SELECT uri FROM mcp_session_subscriptions WHERE session_id = $1", [sessionId]);
      expect(await stored()).toEqual([{ uri: WATCHED }]);
      const open = upstream.openStreams();
      await (subscriber.transport as unknown as { terminateSession(): Promise<void> }).terminateSession();
      expect(await stored()).toEqual([]);
      // With its session gone, the stream ends and the upstream client it held is closed.
      await waitFor(async () => upstream.openStreams() < open, 60_000, "the ended session's upstream client to go");
    } finally {
      await subscriber.close();
      await quiet.close();
    }
  });

  it("bad input is refused with nothing stored: a URI past 2,048 characters, a 101st subscription", async () => {
    const client: Client = await gatewayClient(servers[0]!.baseUrl, "everything", apiKey);
    try {
      const sessionId = (client.transport as { sessionId?: string }).sessionId!;
      const stored = async () => (await sql<{ uri: string }>(db.url, "SELECT uri FROM mcp_session_subscriptions WHERE session_id = $1", [sessionId])).map((row) => row.uri);
      await expect(client.subscribeResource({ uri: `test://${"x".repeat(2_100)}` })).rejects.toThrow(/at most 2048 characters/);
      expect(await stored()).toEqual([]);
      for (let i = 0; i < 100; i++) await client.subscribeResource({ uri: `test://many/${String(i).padStart(3, "0")}` });
      // Subscribing again to a held URI is fine (one row); a new one past the bound is not.
      expect(await client.subscribeResource({ uri: "test://many/000" })).toEqual({});
      await expect(client.subscribeResource({ uri: "test://many/100" })).rejects.toThrow(/at most 100 resource subscriptions/);
      expect(await stored()).toHaveLength(100);
      expect(await stored()).not.toContain("test://many/100");
    } finally {
      await client.close();
    }
  });
});
