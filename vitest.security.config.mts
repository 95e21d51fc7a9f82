import { defineConfig } from "vitest/config";
import { sharedTest } from "./vitest.config.mts";

// `npm run test:security`: the security and reliability suite (test/security), with the settings of
// vitest.config.mts. Only the files differ — and the per-test timeout: these tests run whole imports,
// reviews and restarts against a real server, which on a busy 2-core machine can take well past 20 s.
export default defineConfig({
  test: {
    ...sharedTest,
    include: ["test/security/**/*.test.ts"],
    testTimeout: 90_000,
  },
});
