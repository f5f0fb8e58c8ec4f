import { type CallerOf, type IdempotencyOptions, requireCaller, resolveCaller, runIdempotent } from "./idempotency-core";
import { bodyValue, replyFromResponse, responseFromReply } from "./fetch-reply";

export interface FetchIdempotencyOptions extends IdempotencyOptions {
  /** The route pattern naming the tool (`/v1/refunds`); default the request's path. */
  route?: string;
  /** Who sent the request (the session's user, the API key), part of the key's scope; null when the app has one caller. Required. */
  caller: CallerOf<Request>;
}

/**
 * The Fetch API adapter (Next.js route handlers, any `(Request) => Response` server):
 * `export const POST = withIdempotency({ gate, route: "/v1/refunds" }, handler)`. The handler reads
 * the gate's key with `currentToolCall()?.idempotencyKey`.
 */
export function withIdempotency<Rest extends unknown[]>(
  options: FetchIdempotencyOptions,
  handler: (request: Request, ...rest: Rest) => Response | Promise<Response>,
): (request: Request, ...rest: Rest) => Promise<Response> {
  requireCaller(options.caller);
  return async (request, ...rest) => {
    const url = new URL(request.url);
    const bytes = request.body ? new Uint8Array(await request.clone().arrayBuffer()) : new Uint8Array();
    const incoming = {
      method: request.method,
      route: options.route ?? url.pathname,
      target: url.pathname + url.search,
      header: (name: string) => request.headers.get(name),
      body: bodyValue(bytes, request.headers.get("content-type")),
      caller: await resolveCaller(options.caller, request),
    };
    const answer = await runIdempotent(options, incoming, async (ctx) => replyFromResponse(await handler(request, ...rest), !ctx.replayable));
    if (answer.kind === "pass") return handler(request, ...rest);
    return responseFromReply(answer.reply);
  };
}
