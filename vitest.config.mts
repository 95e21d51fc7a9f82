import { defineConfig } from "vitest/config";

// Integration tests: each test file gets its own database (test/helpers/db.ts), so files run in
// parallel. The provider follows DATABASE_URL exactly like the app (unset → SQLite).
export default defineConfig({
  test: {
    include: ["server/**/*.test.ts", "*.test.ts", "docs/*.test.ts"],
    // Redis-backed scale-out tests run in their own suite (vitest.scale.config.mts, npm run test:scale):
    // the default run is the embedded default — one process, no Redis.
    exclude: ["node_modules/**", "e2e/**", ".next/**", "**/*.redis.test.ts"],
    environment: "node",
    pool: "forks",
    // One file per core (vitest's default is cores − 1: a single file at a time on a 2-core CI
    // machine). More than that measured slower: module import is CPU-bound.
    maxWorkers: "100%",
    testTimeout: 20_000,
    hookTimeout: 60_000,
    teardownTimeout: 30_000,
  },
});
