import http from "node:http";

export interface RawAnswer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/**
 * A POST over raw node:http whose body goes out chunked (`Transfer-Encoding: chunked`, no
 * `Content-Length`): what fetch and a proxy send for a body of unknown length, so a limit that
 * reads only the header never sees it. With `hold`, the request is left open after the payload
 * (never ended): an answer then proves the server refused on the bytes it had read, not after
 * the end. Rejects when no answer came within `answerWithinMs`.
 */
export function chunkedPost(
  url: string,
  headers: Record<string, string>,
  payload: Buffer,
  options: { hold?: boolean; chunkBytes?: number; answerWithinMs?: number } = {},
): Promise<RawAnswer> {
  const budget = options.answerWithinMs ?? 60_000;
  return new Promise<RawAnswer>((resolve, reject) => {
    const req = http.request(url, { method: "POST", headers: { ...headers, "transfer-encoding": "chunked" } });
    let answered = false;
    const timer = setTimeout(() => {
      req.destroy();
      reject(new Error(`no answer within ${budget} ms (${options.hold ? "the body held open after " : ""}${payload.length} bytes sent chunked)`));
    }, budget);
    req.on("response", (res) => {
      answered = true;
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.on("end", () => {
        clearTimeout(timer);
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString("utf8") });
        req.destroy();
      });
      res.on("error", (error) => {
        clearTimeout(timer);
        reject(error);
      });
    });
    req.on("error", (error) => {
      if (answered) return;
      clearTimeout(timer);
      reject(error);
    });
    const size = options.chunkBytes ?? 64 * 1024;
    void (async () => {
      for (let i = 0; i < payload.length && !answered && !req.destroyed; i += size) {
        if (!req.write(payload.subarray(i, i + size))) {
          await new Promise((next) => {
            req.once("drain", next);
            req.once("close", next);
          });
        }
      }
      if (!options.hold && !answered && !req.destroyed) req.end();
    })();
  });
}

/** A POST over node:http, whose headers (Connection among them) go out as written and whose body comes back undecoded (fetch would inflate a gzip or br body). */
export function rawRequest(url: string, headers: Record<string, string>, body: string): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: "POST", headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on("error", reject);
    });
    req.on("error", reject);
    req.setTimeout(60_000, () => req.destroy(new Error("no answer within 60 s")));
    req.end(body);
  });
}
