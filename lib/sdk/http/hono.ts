import type { Context, MiddlewareHandler } from "hono";
import { routePath } from "hono/route";
import { type CallerOf, type IdempotencyOptions, requireCaller, resolveCaller, runIdempotent } from "./idempotency-core";
import { bodyValue, replyFromResponse, responseFromReply } from "./fetch-reply";

/**
 * Hono middleware: `app.post("/v1/refunds", idempotency({ gate }), handler)` or
 * `app.use("/v1/*", idempotency({ gate }))`. The tool is the method and the matched route pattern.
 */
export function idempotency(options: IdempotencyOptions & { route?: string; caller: CallerOf<Context> }): MiddlewareHandler {
  requireCaller(options.caller);
  return async (c, next) => {
    const url = new URL(c.req.url);
    const raw = c.req.raw;
    const bytes = raw.body ? new Uint8Array(await raw.clone().arrayBuffer()) : new Uint8Array();
    const incoming = {
      method: c.req.method,
      route: options.route ?? (routePath(c, -1) || url.pathname),
      target: url.pathname + url.search,
      header: (name: string) => c.req.header(name) ?? null,
      body: bodyValue(bytes, c.req.header("content-type")),
      caller: await resolveCaller(options.caller, c),
    };
    const answer = await runIdempotent(options, incoming, async (ctx) => {
      await next();
      return replyFromResponse(c.res, !ctx.replayable);
    });
    if (answer.kind === "pass") return next();
    if (answer.kind === "executed") {
      c.res = responseFromReply(answer.reply);
      return;
    }
    return responseFromReply(answer.reply);
  };
}
