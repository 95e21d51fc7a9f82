// ESLint for Argus's own code (app/, server/, bench/, e2e/ and the scripts around them). This is not
// the security config Argus runs on uploaded code: that one lives in server/codebase/analysis/eslint
// and is always passed explicitly (overrideConfigFile: true), so this file never applies to uploads.
//
// Besides typescript-eslint's recommended rules, it enforces the layer boundaries of
// docs/architecture.md as import restrictions (see ./eslint.boundaries.mjs); eslint.config.test.ts
// proves that every one of them fires. Only server/config.ts reads process.env (eslint.process-env.mjs).
// No function runs over 150 lines (eslint.function-size.mjs).
import js from "@eslint/js";
import tseslint from "typescript-eslint";
import { boundaryConfigs } from "./eslint.boundaries.mjs";
import { functionSizeConfigs } from "./eslint.function-size.mjs";
import { processEnvConfigs } from "./eslint.process-env.mjs";

export default tseslint.config(
  {
    ignores: [
      "node_modules/**",
      ".next/**",
      "prisma/generated/**",
      "test/fixtures/**",
      "server/review/demo-project/**",
      "data/**",
      "next-env.d.ts",
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ["**/*.{ts,tsx,mts,mjs}"],
    languageOptions: {
      globals: {
        // Node and the browser: both sides live in one tree; tsc checks which API is used where.
        console: "readonly",
        process: "readonly",
        Buffer: "readonly",
        URL: "readonly",
        setTimeout: "readonly",
        clearTimeout: "readonly",
      },
    },
    rules: {
      // TypeScript checks undefined names itself (and knows the DOM and Node types).
      "no-undef": "off",
      "@typescript-eslint/no-unused-vars": [
        "error",
        { argsIgnorePattern: "^_", varsIgnorePattern: "^_", caughtErrors: "none", ignoreRestSiblings: true },
      ],
      // Control characters in regexes are deliberate here (binary detection, terminal escapes, NUL checks).
      "no-control-regex": "off",
      "prefer-const": ["error", { destructuring: "all" }],
    },
  },
  ...boundaryConfigs,
  ...processEnvConfigs,
  ...functionSizeConfigs,
);
