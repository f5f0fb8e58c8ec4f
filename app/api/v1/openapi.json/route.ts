// GET /api/v1/openapi.json — anyone: the agent API contract, generated from the zod schemas.
import { buildOpenApiDocument } from "@/lib/http/openapi";

let document: ReturnType<typeof buildOpenApiDocument> | undefined;

export function GET(): Response {
  document ??= buildOpenApiDocument();
  return Response.json(document);
}
