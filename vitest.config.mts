import { defineConfig } from "vitest/config";

// Integration tests: each test file gets its own database (test/helpers/db.ts), so files run in
// parallel. The provider follows DATABASE_URL exactly like the app (unset → SQLite).
export default defineConfig({
  test: {
    include: ["server/**/*.test.ts"],
    exclude: ["node_modules/**", "e2e/**", ".next/**"],
    environment: "node",
    pool: "forks",
    testTimeout: 20_000,
    hookTimeout: 60_000,
    teardownTimeout: 30_000,
  },
});
