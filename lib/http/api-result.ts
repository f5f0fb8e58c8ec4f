/** An API answer before it is written: a route handler turns it into a Response, the lean agent path writes it to the socket. */
export interface ApiResult {
  status: number;
  headers: Record<string, string>;
  /** JSON text. */
  body: string;
}

/** JSON, as `Response.json` writes it. */
export function jsonResult(status: number, data: unknown, headers: Record<string, string>): ApiResult {
  return { status, headers: { "content-type": "application/json", ...headers }, body: JSON.stringify(data) };
}

export function toResponse(result: ApiResult): Response {
  return new Response(result.body, { status: result.status, headers: result.headers });
}
