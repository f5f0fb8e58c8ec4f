// Idempotency-Key for HTTP APIs you own (draft-ietf-httpapi-idempotency-key-header), backed by the gate.
export { type IdempotencyOptions, type HandlerContext, type CallerOf, REPLAYED_HEADER, callerScoped, toolName } from "./idempotency-core";
export { withIdempotency, type FetchIdempotencyOptions } from "./fetch";
export { idempotencyMiddleware, withIdempotencyNode, type NodeIdempotencyOptions } from "./node";
export { type KeySource, RUN_HEADERS, parseIdempotencyKey, readKeySource } from "./key-source";
export { type Problem, problem } from "./problem";
