import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { OutboundGuard } from "../../../../lib/server/outbound/outbound-fetch";
import { OutboundRefusedError } from "../../../../lib/server/outbound/outbound-refused";

interface Upstream {
  port: number;
  url: string;
  seen: { method: string; path: string; authorization?: string; body: string }[];
  close(): Promise<void>;
}

async function upstream(handle: (req: http.IncomingMessage, res: http.ServerResponse) => void): Promise<Upstream> {
  const seen: Upstream["seen"] = [];
  const server = http.createServer(async (req, res) => {
    let body = "";
    for await (const chunk of req) body += chunk;
    seen.push({ method: req.method!, path: req.url!, authorization: req.headers.authorization, body });
    handle(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    url: `http://127.0.0.1:${port}`,
    seen,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

async function reason(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof OutboundRefusedError) return error.reason;
    throw error;
  }
  return "not refused";
}

/** The outbound guard against real servers on loopback (which only an explicit entry admits). */
describe("outbound fetch", () => {
  let target: Upstream;
  let other: Upstream;
  let bouncer: Upstream;
  let releaseStream: () => void = () => undefined;
  const allowlists = new Map<string, string[]>();
  const guard = new OutboundGuard(async (projectId) => allowlists.get(projectId) ?? []);

  beforeAll(async () => {
    target = await upstream((req, res) => {
      if (req.url === "/stream") {
        res.writeHead(200, { "content-type": "application/octet-stream" });
        res.write(Buffer.alloc(64 * 1024, 1));
        // The rest only after the test has its Response: proves nothing waited for the whole body.
        releaseStream = () => res.end(Buffer.alloc(64 * 1024, 2));
        return;
      }
      res.writeHead(201, { "content-type": "application/json", "x-charge": "ch_1" }).end(JSON.stringify({ ok: true, path: req.url }));
    });
    other = await upstream((_req, res) => res.writeHead(200).end("other"));
    bouncer = await upstream((req, res) => {
      const to = new URL(req.url!, "http://x").searchParams.get("to");
      if (req.url!.startsWith("/loop")) return void res.writeHead(302, { location: "/loop" }).end();
      const status = Number(new URL(req.url!, "http://x").searchParams.get("status") ?? 302);
      res.writeHead(status, { location: to! }).end();
    });
    allowlists.set("p", [`127.0.0.1:${target.port}`, `127.0.0.1:${bouncer.port}`, `127.0.0.1:${other.port}`]);
  });

  afterAll(async () => {
    guard.close();
    await Promise.all([target.close(), other.close(), bouncer.close()]);
  });

  it("calls an allowlisted upstream and hands back status, headers and body", async () => {
    const res = await guard.fetch("p", `${target.url}/v1/charges`, { method: "POST", body: '{"amount":1}', headers: { "content-type": "application/json" } });
    expect(res.status).toBe(201);
    expect(res.headers.get("x-charge")).toBe("ch_1");
    expect(await res.json()).toEqual({ ok: true, path: "/v1/charges" });
    expect(target.seen.at(-1)).toMatchObject({ method: "POST", body: '{"amount":1}' });
  });

  it("refuses what another project's allowlist admits, and an unlisted port, without connecting", async () => {
    const before = target.seen.length;
    expect(await reason(guard.fetch("q", `${target.url}/x`))).toBe("not_allowlisted");
    expect(await reason(guard.fetch("p", `http://127.0.0.1:${target.port + 1}/x`))).toBe("not_allowlisted");
    expect(target.seen.length).toBe(before);
  });

  it("checks the address a name resolves to: `localhost` on the list still needs the loopback address listed", async () => {
    allowlists.set("dns", [`localhost:${target.port}`]);
    expect(await reason(guard.fetch("dns", `http://localhost:${target.port}/x`))).toBe("special_address");
    allowlists.set("dns", [`localhost:${target.port}`, `127.0.0.1:${target.port}`, `::1`]);
    expect((await guard.fetch("dns", `http://localhost:${target.port}/x`)).status).toBe(201);
  });

  it("never follows a redirect to a metadata address or off the allowlist", async () => {
    const metadata = `${bouncer.url}/?to=${encodeURIComponent("http://169.254.169.254/latest/meta-data/iam")}`;
    expect(await reason(guard.fetch("p", metadata))).toBe("not_allowlisted");
    const google = `${bouncer.url}/?to=${encodeURIComponent("http://metadata.google.internal/computeMetadata/v1/")}`;
    expect(await reason(guard.fetch("p", google))).toBe("not_allowlisted");
    const elsewhere = `${bouncer.url}/?to=${encodeURIComponent("http://127.0.0.1:1/")}`;
    expect(await reason(guard.fetch("p", elsewhere))).toBe("not_allowlisted");
  });

  it("follows an allowlisted hop, re-checked, dropping credentials at the origin change; 303 turns a POST into a GET", async () => {
    const hop = `${bouncer.url}/?status=303&to=${encodeURIComponent(`${other.url}/landed`)}`;
    const res = await guard.fetch("p", hop, { method: "POST", body: "x", headers: { authorization: "Bearer s3cret" } });
    expect(await res.text()).toBe("other");
    expect(bouncer.seen.at(-1)).toMatchObject({ method: "POST", authorization: "Bearer s3cret" });
    expect(other.seen.at(-1)).toMatchObject({ method: "GET", path: "/landed", body: "" });
    expect(other.seen.at(-1)!.authorization).toBeUndefined();
  });

  it("bounds the hops, and hands a 3xx back under redirect: manual", async () => {
    expect(await reason(guard.fetch("p", `${bouncer.url}/loop`))).toBe("redirect_limit");
    const manual = await guard.fetch("p", `${bouncer.url}/?to=${encodeURIComponent("http://169.254.169.254/")}`, { redirect: "manual" });
    expect(manual.status).toBe(302);
    expect(manual.headers.get("location")).toBe("http://169.254.169.254/");
  });

  it("streams: the response arrives before the upstream has finished its body", async () => {
    const res = await guard.fetch("p", `${target.url}/stream`);
    expect(res.status).toBe(200);
    const reader = res.body!.getReader();
    let received = 0;
    while (received < 64 * 1024) received += (await reader.read()).value!.byteLength;
    releaseStream();
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) received += chunk.value.byteLength;
    expect(received).toBe(128 * 1024);
  });

  it("refuses non-http schemes and unknown names", async () => {
    expect(await reason(guard.fetch("p", "file:///etc/passwd"))).toBe("scheme");
    allowlists.set("nx", ["does-not-exist.invalid"]);
    await expect(guard.fetch("nx", "http://does-not-exist.invalid/")).rejects.toThrow(/ENOTFOUND|EAI_AGAIN/);
  });
});
