import type { z } from "zod";

/** A failed dashboard request: the HTTP status and the API's error code and message. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = "ApiError";
  }
}

/** Fetches same-origin JSON with the session cookie and parses it with the route's zod schema. */
export async function fetchJson<S extends z.ZodType>(url: string, schema: S, init?: RequestInit): Promise<z.infer<S>> {
  const res = await fetch(url, {
    credentials: "same-origin",
    ...init,
    headers: { accept: "application/json", ...(init?.body ? { "content-type": "application/json" } : {}), ...init?.headers },
  });
  const body: unknown = await res.json().catch(() => null);
  if (!res.ok) {
    const error = (body as { error?: { code?: string; message?: string } } | null)?.error;
    throw new ApiError(res.status, error?.code ?? "http_error", error?.message ?? `request failed (${res.status})`);
  }
  return schema.parse(body);
}

export function postJson<S extends z.ZodType>(url: string, schema: S, body: unknown, method = "POST"): Promise<z.infer<S>> {
  return fetchJson(url, schema, { method, body: JSON.stringify(body) });
}

/** Whether retrying cannot help (auth, not found, forbidden): react-query stops retrying those. */
export function isFinal(error: unknown): boolean {
  return error instanceof ApiError && error.status >= 400 && error.status < 500;
}

export const projectApi = (projectId: string) => ({
  admin: `/api/v1/admin/projects/${encodeURIComponent(projectId)}`,
  operator: `/api/v1/operator/projects/${encodeURIComponent(projectId)}`,
});
