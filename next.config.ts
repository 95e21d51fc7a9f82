import type { NextConfig } from "next";

const nextConfig: NextConfig = {
  // The custom server (server/main.ts) owns /api/trpc, /api/auth and /socket.io; Next serves pages.
  poweredByHeader: false,
  reactStrictMode: true,
  typescript: { tsconfigPath: "tsconfig.app.json" },
  typedRoutes: false,
  // Server-only packages are never bundled into pages.
  serverExternalPackages: ["better-sqlite3", "@prisma/client", "pino", "pino-pretty"],
};

export default nextConfig;
