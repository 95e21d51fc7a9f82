import type { NextConfig } from "next";

const nextConfig: NextConfig = {
  // The custom server (server/main.ts) owns /api/trpc, /api/auth and /socket.io; Next serves pages.
  poweredByHeader: false,
  reactStrictMode: true,
  typescript: { tsconfigPath: "tsconfig.app.json" },
  typedRoutes: false,
  // Server-only packages are never bundled into pages. Yjs (and its y-protocols / lib0) is loaded
  // from node_modules too, so a page rendered on the server shares the server's one copy of it (a
  // second copy breaks Yjs's constructor checks, and it says so in the log).
  serverExternalPackages: ["better-sqlite3", "@prisma/client", "pino", "pino-pretty", "yjs", "y-protocols", "lib0"],
};

export default nextConfig;
