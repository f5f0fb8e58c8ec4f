import type { ConnectionOptions } from "node:tls";
import pg from "pg";
import { parse } from "pg-connection-string";
import { processSlot } from "../../process-wide";

export type SslMode = "disable" | "allow" | "prefer" | "require" | "verify-ca" | "verify-full";

/** TLS as DATABASE_URL asks for it, with libpq's meaning of sslmode, sslrootcert, sslcert and sslkey. */
export interface PgTls {
  /** null: the URL names none, and the connection is plaintext as it always was. */
  sslmode: SslMode | null;
  /** What to hand to node-postgres when TLS is tried. */
  ssl: false | ConnectionOptions;
  /** require, verify-ca, verify-full: no connection without TLS. */
  required: boolean;
}

const MODES: readonly SslMode[] = ["disable", "allow", "prefer", "require", "verify-ca", "verify-full"];
const REQUIRED: ReadonlySet<SslMode> = new Set(["require", "verify-ca", "verify-full"]);

/**
 * libpq semantics (pg-connection-string's libpq compatibility): require encrypts without checking
 * the certificate unless sslrootcert is given, verify-ca checks the chain, verify-full the chain
 * and the host name. Certificate and key files are read here, so a missing one fails at start.
 */
export function pgTlsFromUrl(url: string): PgTls {
  const params = new URL(url).searchParams;
  const mode = params.get("sslmode");
  if (mode !== null && !MODES.includes(mode as SslMode)) {
    throw new Error(`DATABASE_URL: sslmode must be one of ${MODES.join(", ")} (got "${mode}")`);
  }
  const sslmode = mode as SslMode | null;
  const parsed = parse(url, { useLibpqCompat: true });
  const ssl = sslmode === "disable" || sslmode === "allow" || !parsed.ssl ? false : parsed.ssl === true ? {} : (parsed.ssl as ConnectionOptions);
  return { sslmode, ssl, required: sslmode !== null && REQUIRED.has(sslmode) };
}

/** Other libpq parameters node-postgres understands, passed through to every pool. */
export function pgExtraParams(url: string): Pick<pg.ClientConfig, "application_name" | "options" | "connectionTimeoutMillis"> {
  const params = new URL(url).searchParams;
  const timeout = params.get("connect_timeout");
  return {
    ...(params.get("application_name") ? { application_name: params.get("application_name")! } : {}),
    ...(params.get("options") ? { options: params.get("options")! } : {}),
    ...(timeout && Number(timeout) > 0 ? { connectionTimeoutMillis: Number(timeout) * 1000 } : {}),
  };
}

// sslmode=prefer learns once per process whether the server speaks TLS (node-postgres has no
// fallback of its own). Process-wide (lib/process-wide.ts): Next.js loads a module once per layer.
const plaintextUrls = processSlot<Set<string>>("pgPlaintextUrls").getOrCreate(() => new Set<string>());

/** The ssl option for a new pool or client. */
export function sslFor(url: string, tls: PgTls): false | ConnectionOptions {
  return tls.sslmode === "prefer" && plaintextUrls.has(url) ? false : tls.ssl;
}

/**
 * Run once before the first pool opens (server start, CLI scripts, Prisma's CLI). When the URL
 * asks for TLS and none can be had, throws: the process must not start talking in plaintext.
 * Under sslmode=prefer, a server that refuses TLS is used in plaintext, as libpq would.
 */
export async function preparePgTls(url: string, config: pg.ClientConfig, tls: PgTls): Promise<void> {
  if (tls.ssl === false) return;
  const client = new pg.Client({ ...config, ssl: tls.ssl });
  client.on("error", () => {});
  try {
    await client.connect();
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    if (tls.sslmode === "prefer" && /does not support SSL/i.test(message)) {
      plaintextUrls.add(url);
      console.warn("[idemgate] postgres: the server refuses TLS; sslmode=prefer continues in plaintext");
      return;
    }
    if (tls.required || tls.sslmode === null) {
      throw new Error(`DATABASE_URL asks for TLS (sslmode=${tls.sslmode ?? "ssl"}) but no TLS connection could be made: ${message}`);
    }
    throw error;
  } finally {
    await client.end().catch(() => {});
  }
}
