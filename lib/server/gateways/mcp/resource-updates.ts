import type { Client } from "@modelcontextprotocol/client";
import { JSONRPC_VERSION, type ResourceUpdatedNotification, serializeMessage, specTypeSchemas } from "@modelcontextprotocol/server";

/** How often the stream re-reads the session's subscriptions: a subscribe taken by another instance takes effect within it. */
export const RESYNC_MS = 1_000;
/** An SSE comment now and then, so proxies and load balancers do not close an idle stream. */
const KEEP_ALIVE_MS = 15_000;

export interface ResourceUpdateSource {
  /** A dedicated upstream client for this stream, with `onUpdated` registered before it connects. */
  connect(onUpdated: (notification: ResourceUpdatedNotification) => void): Promise<Client>;
  /** The session's subscribed URIs as stored now; null once the session has ended (the stream ends too). */
  subscriptions(): Promise<string[] | null>;
}

/**
 * A session's standalone GET stream (Streamable HTTP, 2025-era sessions): whichever instance the
 * client's GET lands on holds an upstream client of its own, keeps it subscribed to the URIs the
 * session stored (re-read every RESYNC_MS, since subscribe and unsubscribe may land on any
 * instance), and relays the upstream's `notifications/resources/updated` as SSE `message` events.
 * The upstream client is closed when the client goes away, the session ends or the stream is cancelled.
 */
export function resourceUpdateStream(source: ResourceUpdateSource, signal: AbortSignal): Response {
  const encoder = new TextEncoder();
  let controller: ReadableStreamDefaultController<Uint8Array> | undefined;
  let client: Client | undefined;
  let subscribed = new Set<string>();
  let closed = false;
  let resync: ReturnType<typeof setTimeout> | undefined;
  let keepAlive: ReturnType<typeof setInterval> | undefined;

  const close = () => {
    if (closed) return;
    closed = true;
    clearTimeout(resync);
    clearInterval(keepAlive);
    void client?.close().catch(() => undefined);
    client = undefined;
    try {
      controller?.close();
    } catch {
      // Already cancelled by the reader.
    }
  };
  const write = (text: string) => {
    if (closed) return;
    try {
      controller?.enqueue(encoder.encode(text));
    } catch {
      close();
    }
  };
  const relay = (notification: ResourceUpdatedNotification) => {
    // The SDK has validated the upstream's notification; the JSON-RPC envelope is checked against
    // the spec's schema before it goes on the wire.
    const checked = specTypeSchemas.JSONRPCNotification["~standard"].validate({ jsonrpc: JSONRPC_VERSION, method: notification.method, params: notification.params });
    if (checked instanceof Promise || checked.issues) return;
    // serializeMessage ends the JSON with a newline; an SSE event is `data:` lines closed by a blank line.
    write(`event: message\ndata: ${serializeMessage(checked.value).trimEnd()}\n\n`);
  };
  const sync = async () => {
    try {
      const wanted = await source.subscriptions();
      if (wanted === null) return close();
      if (!client && wanted.length > 0) {
        const connected = await source.connect(relay);
        if (closed) return void connected.close().catch(() => undefined);
        client = connected;
      }
      for (const uri of wanted) {
        if (closed || !client || subscribed.has(uri)) continue;
        await client.subscribeResource({ uri });
        subscribed.add(uri);
      }
      for (const uri of [...subscribed]) {
        if (closed || !client || wanted.includes(uri)) continue;
        await client.unsubscribeResource({ uri });
        subscribed.delete(uri);
      }
    } catch (error) {
      // The upstream failed (or refused a URI): start over with a fresh client on the next round,
      // subscribing the whole set again. Updates in between are lost, as on any reconnect.
      console.warn("[idemgate] mcp resource subscriptions:", error instanceof Error ? error.message : error);
      void client?.close().catch(() => undefined);
      client = undefined;
      subscribed = new Set();
    }
    if (!closed) resync = setTimeout(() => void sync(), RESYNC_MS);
  };

  const body = new ReadableStream<Uint8Array>({
    start(streamController) {
      controller = streamController;
      signal.addEventListener("abort", close, { once: true });
      // A first comment sends the headers at once: the client knows the stream is open.
      write(": idemgate resource updates\n\n");
      keepAlive = setInterval(() => write(": keep-alive\n\n"), KEEP_ALIVE_MS);
      void sync();
    },
    cancel: close,
  });
  return new Response(body, { status: 200, headers: { "content-type": "text/event-stream", "cache-control": "no-cache, no-store", connection: "keep-alive" } });
}
