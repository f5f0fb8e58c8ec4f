import { Readable } from "node:stream";
import { gzipSync } from "node:zlib";
import { describe, expect, it, vi } from "vitest";
import { MAX_BODY_BYTES, readBoundedBody } from "../../../lib/http/bounded-body";
import { readJsonBody } from "../../../lib/http/read-json-body";
import { AppError } from "../../../lib/server/app-error";

const post = (text: string) => new Request("http://gate.test/api", { method: "POST", headers: { "content-type": "application/json" }, body: text });

describe("readJsonBody (every route's body reader, agent and operator)", () => {
  it("refuses a body nested beyond the bound with a 400 that says which bound and where", async () => {
    const error = await readJsonBody(post(`{"note":${"[".repeat(10_000)}${"]".repeat(10_000)}}`)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AppError);
    expect(error).toMatchObject({ code: "invalid_json" });
    expect((error as AppError).message).toMatch(/nested deeper than 100 levels at note\.0\.0/);
    expect((error as AppError).details.issues?.[0]).toMatchObject({ code: "too_deep" });
  });

  it("reads a body within the bounds", async () => {
    expect(await readJsonBody(post(`{"a":[[[1]]]}`))).toEqual({ a: [[[1]]] });
  });
});

/** A body that arrives in `chunk`-byte pieces and never ends unless `total` is reached; counts what was pulled from it. */
function trickle(chunk: number, total = Infinity) {
  let pulled = 0;
  let cancelled = false;
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (pulled >= total) return controller.close();
      pulled += chunk;
      controller.enqueue(new Uint8Array(chunk).fill(0x20));
    },
    cancel() {
      cancelled = true;
    },
  });
  return { stream, pulled: () => pulled, cancelled: () => cancelled };
}

const headers = (entries: Record<string, string> = {}) => new Headers({ "content-type": "application/json", ...entries });

describe("readBoundedBody (the one bounded reader: agent, operator, MCP, /gw, auth)", () => {
  it("refuses a body with no Content-Length at the first chunk past the limit, though it never ends, and stops reading it", async () => {
    const body = trickle(64 * 1024);
    const error = await readBoundedBody(headers(), body.stream, MAX_BODY_BYTES).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: "payload_too_large" });
    // The rest is read and dropped (so a client still sending reads the 413), up to a bound, then cut.
    await vi.waitFor(() => expect(body.cancelled()).toBe(true), { timeout: 30_000 });
    expect(body.pulled()).toBeLessThanOrEqual(17 * MAX_BODY_BYTES + 4 * 64 * 1024);
  });

  it("a body that ends within the limit comes back whole; a declared length over it is refused unread", async () => {
    expect((await readBoundedBody(headers(), trickle(1000, 5000).stream, 5000)).byteLength).toBe(5000);
    const body = trickle(10);
    await expect(readBoundedBody(headers({ "content-length": String(MAX_BODY_BYTES + 1) }), body.stream)).rejects.toMatchObject({ code: "payload_too_large" });
  });

  it("refuses a content-coded body (gzip, deflate, br) with 415 and reads none of it; identity is no coding", async () => {
    for (const coding of ["gzip", "deflate", "br", "x-gzip", "identity, gzip"]) {
      const error = await readBoundedBody(headers({ "content-encoding": coding }), new Request("http://gate.test", { method: "POST", body: gzipSync("{}") }).body).catch((e: unknown) => e);
      expect(error, coding).toMatchObject({ code: "unsupported_media_type" });
      expect((error as AppError).message).toMatch(/Content-Encoding/);
    }
    expect((await readBoundedBody(headers({ "content-encoding": "identity" }), post("{}").body)).toString()).toBe("{}");
  });

  it("reads a Node request's body (the lean agent path) the same way", async () => {
    await expect(readBoundedBody(headers(), Readable.from([Buffer.alloc(600_000), Buffer.alloc(600_000)]))).rejects.toMatchObject({ code: "payload_too_large" });
    expect((await readBoundedBody(headers(), Readable.from([Buffer.from("{"), Buffer.from("}")]))).toString()).toBe("{}");
  });
});
