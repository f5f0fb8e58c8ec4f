import { createCipheriv, createDecipheriv, createHmac, randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";

const IV_BYTES = 12;
const TAG_BYTES = 16;

/**
 * Upstream secrets at rest: AES-256-GCM under the install's key, stored as base64 of
 * iv ‖ tag ‖ ciphertext. The upstream's id is the associated data, so a ciphertext copied onto
 * another upstream row does not decrypt.
 */
export class SecretBox {
  private readonly fingerprintKey: Buffer;

  constructor(private readonly key: Buffer) {
    if (key.length !== 32) throw new Error("the upstream secret key must be 32 bytes");
    // A key of its own for fingerprints, derived from the install's: the cipher key is used for nothing else.
    this.fingerprintKey = createHmac("sha256", key).update("idemgate:secret-fingerprint").digest();
  }

  /**
   * A short keyed fingerprint (HMAC-SHA256, 12 hex) of a sealed value, to tell apart two secrets
   * shown by the same host. Keyed with the install's key, so a reader of the fingerprint cannot
   * test guesses of a short secret against it.
   */
  fingerprint(value: string, boundTo: string): string {
    return createHmac("sha256", this.fingerprintKey).update(boundTo).update("\0").update(value).digest("hex").slice(0, 12);
  }

  seal(plaintext: string, boundTo: string): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv("aes-256-gcm", this.key, iv);
    cipher.setAAD(Buffer.from(boundTo));
    const body = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
    return Buffer.concat([iv, cipher.getAuthTag(), body]).toString("base64");
  }

  open(sealed: string, boundTo: string): string {
    const raw = Buffer.from(sealed, "base64");
    const decipher = createDecipheriv("aes-256-gcm", this.key, raw.subarray(0, IV_BYTES));
    decipher.setAAD(Buffer.from(boundTo));
    decipher.setAuthTag(raw.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
    return Buffer.concat([decipher.update(raw.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString("utf8");
  }
}

/**
 * The install's key: IDEMGATE_SECRETS_KEY (base64 of 32 bytes; every instance of a cluster needs
 * the same one), else generated once into the data directory for a single instance.
 */
export function resolveSecretsKey(fromEnv: string | undefined, dataDir: string): Buffer {
  if (fromEnv) return Buffer.from(fromEnv, "base64");
  const file = path.resolve(dataDir, "secrets-key");
  if (existsSync(file)) return Buffer.from(readFileSync(file, "utf8").trim(), "base64");
  mkdirSync(path.dirname(file), { recursive: true });
  const key = randomBytes(32).toString("base64");
  try {
    writeFileSync(file, `${key}\n`, { mode: 0o600, flag: "wx" });
    return Buffer.from(key, "base64");
  } catch {
    return Buffer.from(readFileSync(file, "utf8").trim(), "base64");
  }
}
