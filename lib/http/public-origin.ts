import { env } from "../env";

/** The gate's public origin: `BETTER_AUTH_URL` when set, else as this request addressed it (its Host). */
export function publicOrigin(req: Request): string {
  const configured = env().BETTER_AUTH_URL;
  if (configured) return new URL(configured).origin;
  const url = new URL(req.url);
  const host = req.headers.get("host");
  return host ? `${url.protocol}//${host}` : url.origin;
}
