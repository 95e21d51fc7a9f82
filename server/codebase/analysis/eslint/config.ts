/**
 * The built-in ESLint config, used when a project has no flat config of its own (or it fails to
 * load): typescript-eslint's parser (parses TS, TSX, JS, JSX without type information, so no
 * tsconfig or project build is needed) and eslint-plugin-security's rules. detect-object-injection is
 * left out: it flags every `obj[key]`, which drowns the rest.
 */
import { createRequire } from "node:module";
import type { ESLint, Linter } from "eslint";
import tseslint from "typescript-eslint";

export const LINTABLE = /\.(?:[cm]?[jt]s|[jt]sx)$/;

const SECURITY_RULES = [
  "detect-buffer-noassert",
  "detect-child-process",
  "detect-disable-mustache-escape",
  "detect-eval-with-expression",
  "detect-new-buffer",
  "detect-no-csrf-before-method-override",
  "detect-non-literal-fs-filename",
  "detect-non-literal-regexp",
  "detect-non-literal-require",
  "detect-possible-timing-attacks",
  "detect-pseudoRandomBytes",
  "detect-unsafe-regex",
  "detect-bidi-characters",
  "detect-invisible-characters",
];

export function builtinConfig(): Linter.Config[] {
  // The plugin is CommonJS without type declarations: load it as what ESLint expects.
  const security = createRequire(import.meta.url)("eslint-plugin-security") as ESLint.Plugin;
  return [
    {
      files: ["**/*.{js,mjs,cjs,jsx,ts,tsx,mts,cts}"],
      languageOptions: {
        parser: tseslint.parser as Linter.Parser,
        ecmaVersion: "latest",
        sourceType: "module",
        parserOptions: { ecmaFeatures: { jsx: true } },
      },
      plugins: { security },
      linterOptions: { reportUnusedDisableDirectives: "off" },
      rules: Object.fromEntries(SECURITY_RULES.map((r) => [`security/${r}`, "warn"])),
    },
  ];
}
