import { defineConfig } from "vitest/config";

// Integration tests: each test file gets its own database (test/helpers/db.ts), so files run in
// parallel. The provider follows DATABASE_URL exactly like the app (unset → SQLite).
// Two projects: the server's tests (and app/ tests of plain functions) run in Node; the browser's
// component and hook tests (app/**/*.test.tsx) run in happy-dom, a DOM in the same process.
/** What every suite shares (vitest.scale.config.mts and vitest.security.config.mts start from it). */
export const sharedTest = {
  // Redis-backed scale-out tests run in their own suite (vitest.scale.config.mts, npm run test:scale):
  // the default run is the embedded default — one process, no Redis.
  exclude: ["node_modules/**", "e2e/**", ".next/**", "**/*.redis.test.ts"] as string[],
  pool: "forks",
  // One file per core (vitest's default is cores − 1: a single file at a time on a 2-core CI
  // machine). More than that measured slower: module import is CPU-bound.
  maxWorkers: "100%",
  testTimeout: 20_000,
  hookTimeout: 60_000,
  teardownTimeout: 30_000,
} as const;

export default defineConfig({
  // tsconfig's "@/*" paths: the browser's code imports "@/app/…" and "@/server/shared/…".
  resolve: { alias: { "@": import.meta.dirname } },
  test: {
    ...sharedTest,
    projects: [
      {
        extends: true,
        test: {
          name: "server",
          include: [
            "server/**/*.test.ts",
            "*.test.ts",
            "docs/*.test.ts",
            "app/**/*.test.ts",
            // Contracts between the layers (test/contracts: neither server/ nor app/ imports the other).
            "test/contracts/**/*.test.ts",
          ],
          environment: "node",
        },
      },
      {
        extends: true,
        test: {
          name: "app",
          include: ["app/**/*.test.tsx"],
          environment: "happy-dom",
          setupFiles: ["test/helpers/dom-setup.ts"],
        },
      },
    ],
  },
});
