import { defineConfig } from "vitest/config";
import base from "./vitest.config.mts";

// `npm run test:security`: the security and reliability suite (test/security), with the same pool,
// worker count and timeouts as the unit and integration tests; only the files it runs differ.
export default defineConfig({
  test: {
    ...base.test,
    include: ["test/security/**/*.test.ts"],
  },
});
