/** @type {import('next').NextConfig} */
const nextConfig = {
  // Native and driver modules stay outside the bundle and load from node_modules at run time.
  serverExternalPackages: ["better-sqlite3", "pg", "@prisma/client", "@prisma/adapter-better-sqlite3", "@prisma/adapter-pg", "prisma"],
  poweredByHeader: false,
  reactStrictMode: true,
};

export default nextConfig;
