/** @type {import('next').NextConfig} */
const nextConfig = {
  // Native and driver modules stay outside the bundle and load from node_modules at run time.
  serverExternalPackages: ["better-sqlite3", "pg", "@prisma/client", "@prisma/adapter-better-sqlite3", "@prisma/adapter-pg", "prisma"],
  poweredByHeader: false,
  // Gzip of a few hundred bytes of JSON costs more CPU than it saves on every agent call; a
  // deployment compresses the dashboard's assets at its load balancer or proxy instead.
  compress: false,
  reactStrictMode: true,
};

export default nextConfig;
