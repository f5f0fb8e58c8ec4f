import type { OpenAPIRegistry } from "@asteasolutions/zod-to-openapi";
import { z } from "zod";

export const ProblemSchema = z
  .object({
    type: z.string().describe("The problem type's documentation page on this gate, `https://<gate>/problems/<slug>` (`urn:idemgate:problem:<slug>` from a middleware whose gate is in process and names no URL)"),
    title: z.string(),
    status: z.number().int(),
    detail: z.string(),
  })
  .meta({ id: "Problem", description: "RFC 9457 problem details (application/problem+json)" });

const problem = (description: string) => ({ description, content: { "application/problem+json": { schema: ProblemSchema } } });

const GatewayPathParams = z.object({
  upstream: z.string().describe("The HTTP upstream's name (Settings → Upstreams)"),
  path: z.string().describe("Path (and query) appended to the upstream's base URL"),
});

const GatewayHeaders = z.object({
  "idempotency-key": z.string().max(200).optional().describe("Dedupes POST and PATCH (draft-ietf-httpapi-idempotency-key-header); required unless Idemgate-Run-Id is sent"),
  "idemgate-run-id": z.string().max(200).optional().describe("Agent runtimes: key the request by run and step (step strategy) instead of Idempotency-Key"),
  "idemgate-step-id": z.string().max(200).optional(),
  "idemgate-scope": z.string().max(200).optional(),
  "idemgate-resend": z
    .string()
    .max(2_000)
    .optional()
    .describe("Run a completed key once more, for this reason: under the policy's `bypass: approval` an operator approves first (409 until then), then the same request sent again runs once under the key's next generation"),
});

/** The HTTP gateway: any method and path under /gw/{upstream}/; answers are the upstream's own. */
export function registerGatewayPaths(registry: OpenAPIRegistry): void {
  for (const method of ["post", "patch", "get", "put", "delete"] as const) {
    const gated = method === "post" || method === "patch";
    registry.registerPath({
      method,
      path: "/gw/{upstream}/{path}",
      tags: ["gateway"],
      summary: gated ? "Forward to an HTTP upstream through the gate (deduped by Idempotency-Key)" : "Forward to an HTTP upstream (not gated)",
      security: [{ apiKey: [] }],
      request: { params: GatewayPathParams, ...(gated ? { headers: GatewayHeaders } : {}) },
      responses: {
        200: { description: "The upstream's answer (any status); a replay carries `Idempotent-Replayed: true`" },
        400: problem("Idempotency-Key or Idemgate-Resend missing or malformed, or a path that cannot be forwarded"),
        401: problem("No or bad API key"),
        403: problem("The upstream, or a redirect it sent, is refused by the outbound allowlist; or a resend the route's policy never allows (`bypass: never`)"),
        404: problem("No HTTP upstream by that name"),
        409: problem(
          "A request with this key is still running, or it ran and its response was too large to keep (or, under `onDuplicate: refuse`, it ran); or a resend waits for an operator's approval (`resendRequestId`)",
        ),
        422: problem("The key was used with a different payload"),
        502: problem("The upstream did not answer (released: retry with the same key)"),
      },
    });
  }
}
