import { defineConfig } from "vitest/config";
import { sharedTest } from "./vitest.config.mts";

// `npm run test:scale`: the scale-out suite — everything that needs Redis (REDIS_URL), next to its
// code as *.redis.test.ts, and the multi-process tests in test/scale (several Argus processes on one
// PostgreSQL, DATABASE_URL, and one Redis). Each file skips with the reason when a server is missing.
// One file at a time: the multi-process tests start several servers each.
export default defineConfig({
  // tsconfig's "@/*" paths, as in vitest.config.mts (the browser's doc client is used by test/helpers/coedit.ts).
  resolve: { alias: { "@": import.meta.dirname } },
  test: {
    ...sharedTest,
    include: ["server/**/*.redis.test.ts", "test/scale/**/*.test.ts"],
    exclude: ["node_modules/**"],
    maxWorkers: 1,
    testTimeout: 120_000,
    hookTimeout: 180_000,
  },
});
