// Convention that lints: only server/config.ts reads process.env. Everything else receives its
// settings (a zod-validated Config, or the helpers config.ts exports for child processes and the
// operator's own pipeline runs) — so a server key cannot quietly reach code that a user's input
// drives (docs/security.md, "Server keys"). eslint.process-env.test.ts proves the rule fires.

export const PROCESS_ENV_MESSAGE =
  "[process-env] Only server/config.ts reads process.env: add the setting to its schema and pass it in (childProcessEnv() for child processes).";

export const processEnvConfigs = [
  {
    files: ["server/**/*.{ts,tsx,mts}"],
    ignores: ["server/config.ts", "server/**/*.test.ts", "server/**/test-support.ts", "server/**/testing.ts"],
    rules: {
      "no-restricted-properties": ["error", { object: "process", property: "env", message: PROCESS_ENV_MESSAGE }],
    },
  },
];
