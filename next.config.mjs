import { PHASE_PRODUCTION_BUILD, PHASE_PRODUCTION_SERVER } from "next/constants.js";

// The dashboard's security headers, on every response. Next.js inlines its RSC payload in
// <script> tags and the charts set inline styles, hence 'unsafe-inline' for both; everything
// else comes from this origin only, and no other site may frame a page (clickjacking an approval).
const isDev = process.env.NODE_ENV !== "production";
const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  `script-src 'self' 'unsafe-inline'${isDev ? " 'unsafe-eval'" : ""}`,
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join("; ");

const SECURITY_HEADERS = [
  { key: "Content-Security-Policy", value: CONTENT_SECURITY_POLICY },
  { key: "X-Frame-Options", value: "DENY" },
  { key: "X-Content-Type-Options", value: "nosniff" },
  { key: "Referrer-Policy", value: "same-origin" },
];

/** @type {import('next').NextConfig} */
const nextConfig = {
  // Native and driver modules stay outside the bundle and load from node_modules at run time.
  serverExternalPackages: ["better-sqlite3", "pg", "@prisma/client", "@prisma/adapter-better-sqlite3", "@prisma/adapter-pg", "prisma"],
  poweredByHeader: false,
  // Gzip of a few hundred bytes of JSON costs more CPU than it saves on every agent call; a
  // deployment compresses the dashboard's assets at its load balancer or proxy instead.
  compress: false,
  reactStrictMode: true,
  // `npm test` type-checks the whole tree (tsc --noEmit) before its build, which skips Next's second
  // pass over the same files; `npm start` and a plain `next build` still check.
  typescript: { ignoreBuildErrors: process.env.IDEMGATE_BUILD_SKIP_TYPECHECK === "1" },
  async headers() {
    return [{ source: "/:path*", headers: SECURITY_HEADERS }];
  },
};

/**
 * Next.js loads every page and route module right after it starts listening: ~1.7 s of one core per
 * boot here, spent on the dashboard's modules while the agent API (served beside Next.js by
 * scripts/serve.mjs) needs none of them. Each is loaded when first asked for instead;
 * IDEMGATE_PRELOAD_PAGES=true brings the preload back. Only the server reads the setting, so only
 * the server is given it: `next build` lists every experimental setting it is handed, and a
 * "⨯ preloadEntriesOnStart" at every first start reads like an error.
 */
export default function config(phase) {
  // Turbopack writes its build cache (~230 MB) to .next/cache at the end of every build, so the next
  // build of a checkout is faster. A clean clone in CI throws it away: .ci/run sets
  // IDEMGATE_BUILD_CACHE=false and its build ends when the app is built.
  if (phase === PHASE_PRODUCTION_BUILD && process.env.IDEMGATE_BUILD_CACHE === "false") {
    return { ...nextConfig, experimental: { turbopackFileSystemCacheForBuild: false } };
  }
  if (phase !== PHASE_PRODUCTION_SERVER) return nextConfig;
  return { ...nextConfig, experimental: { preloadEntriesOnStart: process.env.IDEMGATE_PRELOAD_PAGES === "true" } };
}
