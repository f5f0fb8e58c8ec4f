import { createHmac, hkdfSync, randomBytes, timingSafeEqual } from "node:crypto";

const FORMAT = "l1";

/**
 * Lease tokens derived from the attempt they were issued for: `l1.<attempt>.<HMAC(key, callId:attempt)>`.
 *
 * Why: a complete or heartbeat whose token is not the record's current one used to be recorded as
 * `lease_lost` ("the effect may have run twice") whatever the token was, so any key of the project
 * could raise that alarm on any live call with a made-up token. A derived token says which attempt
 * it belonged to and proves it without a table of old tokens: only a token of an earlier attempt of
 * this very record is a lost lease; anything else was never issued and is refused without a trace.
 */
export class LeaseTokens {
  private readonly key: Buffer;

  /** `secret`: the per-install secret (every instance sharing a database must use the same one). */
  constructor(secret: string | Buffer = randomBytes(32)) {
    this.key = Buffer.from(hkdfSync("sha256", secret, Buffer.alloc(0), "idemgate lease tokens v1", 32));
  }

  issue(callId: string, attempt: number): string {
    return `${FORMAT}.${attempt}.${this.mac(callId, attempt)}`;
  }

  /** The attempt of `callId` this token was issued for, or null when this gate never issued it. */
  attemptOf(callId: string, token: string): number | null {
    const [format, attemptText, mac, ...rest] = token.split(".");
    if (format !== FORMAT || rest.length > 0 || !attemptText || !mac || !/^[1-9][0-9]{0,8}$/.test(attemptText)) return null;
    const attempt = Number(attemptText);
    const expected = Buffer.from(this.mac(callId, attempt));
    const given = Buffer.from(mac);
    return given.length === expected.length && timingSafeEqual(given, expected) ? attempt : null;
  }

  private mac(callId: string, attempt: number): string {
    return createHmac("sha256", this.key).update(`${callId}:${attempt}`).digest("base64url");
  }
}
