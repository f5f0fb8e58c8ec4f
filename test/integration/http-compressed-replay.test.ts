import { randomUUID } from "node:crypto";
import { brotliDecompressSync, gunzipSync } from "node:zlib";
import { expect, it } from "vitest";
import { COMPRESSED_BOUND } from "../helpers/http-tool-servers";
import { describeMiddlewareMatrix } from "../helpers/middleware-matrix";
import { problemType } from "../helpers/problem-type";
import { rawRequest } from "../helpers/raw-http";

/**
 * Issue #35 §3: a response the handler compressed (it honoured the client's Accept-Encoding) is
 * stored as the bytes it sent and replays byte for byte with its Content-Encoding, so the replay
 * decompresses to the same body; the duplicate never runs the handler. maxStoredBytes counts the
 * bytes as sent (compressed): the middleware never inflates a body, so one that inflates past the
 * limit is kept and replayed, and one whose compressed bytes are over it is sent but not kept (the
 * duplicate is told it ran: 409), as docs/http-tools.md says.
 *
 * Express and Hono only (in process and over HTTP, both providers): a Fetch handler is Hono's path
 * without the router, and Next.js route handlers drop a handler's Content-Encoding (documented in
 * docs/http-tools.md), so Next is not tested for it. /gw's compressed replay is in
 * http-gateway.test.ts.
 */
const inflate = (encoding: string | undefined, bytes: Buffer) => (encoding === "br" ? brotliDecompressSync(bytes) : gunzipSync(bytes)).toString("utf8");

describeMiddlewareMatrix(
  "a compressed response replays byte for byte with its Content-Encoding",
  (mounted) => {
    const send = (path: string, key: string, encoding: "gzip" | "br", body: Record<string, unknown>) =>
      rawRequest(`${mounted().tool.baseUrl}${path}`, { "content-type": "application/json", "idempotency-key": key, "accept-encoding": encoding }, JSON.stringify(body));

    it.each(["gzip", "br"] as const)("%s: the duplicate gets the stored bytes, Content-Encoding and status; they decompress to the first answer; the handler ran once", async (encoding) => {
      const id = randomUUID().slice(0, 8);
      const key = randomUUID();
      const first = await send("/v1/compressed", key, encoding, { id, pad: 2_000, noise: 64 });
      expect([first.status, first.headers["content-encoding"], first.headers["idempotent-replayed"]]).toEqual([201, encoding, undefined]);
      const sent = JSON.parse(inflate(encoding, first.body)) as { execution: number; refundId: string };
      expect(sent.execution).toBe(1);
      const again = await send("/v1/compressed", key, encoding, { id, pad: 2_000, noise: 64 });
      expect([again.status, again.headers["content-encoding"], again.headers["content-type"], again.headers["idempotent-replayed"], again.headers["x-refund-id"]]).toEqual([
        201,
        encoding,
        first.headers["content-type"],
        "true",
        sent.refundId,
      ]);
      expect(again.body.equals(first.body)).toBe(true);
      expect(inflate(again.headers["content-encoding"], again.body)).toBe(inflate(encoding, first.body));
      expect([mounted().tool.executions.get(id), mounted().tool.effects.get(id)]).toEqual([1, 1]);
    });

    it.each(["gzip", "br"] as const)(
      "%s: a body that inflates to 4 MiB, past maxStoredBytes and the gate's request limit, is kept by its compressed bytes and replays whole",
      async (encoding) => {
        const id = randomUUID().slice(0, 8);
        const key = randomUUID();
        const body = { id, pad: 4 * 1024 * 1024 };
        const first = await send("/v1/compressed-bounded", key, encoding, body);
        expect([first.status, first.headers["content-encoding"]]).toEqual([201, encoding]);
        expect(first.body.byteLength).toBeLessThan(COMPRESSED_BOUND);
        expect(inflate(encoding, first.body).length).toBeGreaterThan(4 * 1024 * 1024);
        const again = await send("/v1/compressed-bounded", key, encoding, body);
        expect([again.status, again.headers["content-encoding"], again.headers["idempotent-replayed"]]).toEqual([201, encoding, "true"]);
        expect(again.body.equals(first.body)).toBe(true);
        expect(mounted().tool.executions.get(id)).toBe(1);
      },
    );

    it.each(["gzip", "br"] as const)("%s: compressed bytes over maxStoredBytes reach the client whole but are not kept; the duplicate is told it ran (409), the handler ran once", async (encoding) => {
      const id = randomUUID().slice(0, 8);
      const key = randomUUID();
      // 32 KiB of random bytes as hex: over the 16 KiB bound however it is compressed.
      const body = { id, noise: 32 * 1024 };
      const first = await send("/v1/compressed-bounded", key, encoding, body);
      expect([first.status, first.headers["content-encoding"]]).toEqual([201, encoding]);
      expect(first.body.byteLength).toBeGreaterThan(COMPRESSED_BOUND);
      expect((JSON.parse(inflate(encoding, first.body)) as { noise: string }).noise).toHaveLength(64 * 1024);
      const again = await send("/v1/compressed-bounded", key, encoding, body);
      expect([again.status, again.headers["content-encoding"], (JSON.parse(again.body.toString("utf8")) as { type: string }).type]).toEqual([
        409,
        undefined,
        problemType("request-already-processed"),
      ]);
      expect(mounted().tool.executions.get(id)).toBe(1);
    });
  },
  (framework) => framework === "express" || framework === "hono",
);
