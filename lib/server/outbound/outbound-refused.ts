/** Why an outbound call was not made; callers map it to their own surface's error. */
export type OutboundRefusal =
  | "invalid_url"
  | "scheme"
  | "not_allowlisted"
  | "metadata_host"
  | "special_address"
  | "unresolvable"
  | "redirect_limit";

const BRAND = Symbol.for("idemgate.OutboundRefusedError");

export class OutboundRefusedError extends Error {
  // Same reason as AppError: Next may load this module more than once per process.
  static override [Symbol.hasInstance](value: unknown): boolean {
    return typeof value === "object" && value !== null && BRAND in value;
  }

  constructor(
    readonly reason: OutboundRefusal,
    message: string,
  ) {
    super(message);
    this.name = "OutboundRefusedError";
    Object.defineProperty(this, BRAND, { value: true });
  }
}
