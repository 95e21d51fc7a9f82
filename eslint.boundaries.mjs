// The layer boundaries of docs/architecture.md, as lint rules. Each boundary names the imports it
// guards (a regex over the import source), the zones it applies to and the zone that owns it (where
// the import is the whole point). ESLint replaces a rule's options instead of merging them, so the
// rules are assembled per zone: one config entry per zone, with every boundary that applies there.
// eslint.config.test.ts lints a deliberate violation of each boundary and expects it to fire.

/** Folders with a rule set of their own. Order matters: the first zone whose glob matches wins. */
export const ZONES = [
  { name: "db", files: ["server/db/**"] },
  { name: "store", files: ["server/retrieval/store/**"] },
  { name: "llm", files: ["server/llm/**"] },
  { name: "realtime", files: ["server/realtime/**"] },
  { name: "cluster", files: ["server/cluster/**"] },
  { name: "jobs", files: ["server/jobs/**"] },
  { name: "shared", files: ["server/shared/**"] },
  { name: "agent", files: ["server/agent/**"] },
  { name: "review", files: ["server/review/**"] },
  // Who may use the review feature's runtime (through its index): the composition root, the HTTP
  // glue, the tRPC routers, `argus review`, and tests (fixtures such as the demo project).
  {
    name: "review-users",
    files: [
      "server/context.ts",
      "server/http/**",
      "server/main.ts",
      "server/trpc/routers/**",
      "server/cli/review.ts",
      "server/**/*.test.ts",
    ],
  },
  { name: "server", files: ["server/**"] },
  { name: "app", files: ["app/**"] },
  { name: "bench", files: ["bench/**"] },
  { name: "e2e", files: ["e2e/**"] },
];

const SERVER_ZONES = [
  "db",
  "store",
  "llm",
  "realtime",
  "cluster",
  "jobs",
  "shared",
  "agent",
  "review",
  "review-users",
  "server",
];
const ALL_ZONES = ZONES.map((z) => z.name);

export const BOUNDARIES = [
  {
    id: "prisma",
    regex: String.raw`^@prisma/(client|adapter-)|(^|/)prisma/generated(/|$)|^\.prisma/`,
    appliesTo: ALL_ZONES,
    owner: "db",
    message: "Only server/db imports Prisma's client and adapters: use the db client from server/db/client.ts.",
  },
  {
    id: "lancedb",
    regex: String.raw`^@lancedb/|^apache-arrow(/|$)`,
    // bench/ may: it measures LanceDB's index kinds themselves (bench/measure/ann.ts).
    appliesTo: [...SERVER_ZONES, "app", "e2e"],
    owner: "store",
    message: "Only server/retrieval/store imports LanceDB: go through server/retrieval/store/index.ts.",
  },
  {
    id: "store-index",
    // testing.ts is test support, reached directly (like server/llm's test-support).
    regex: String.raw`(^|/)store/(?!index\.ts$|testing\.ts$)[^/]+`,
    appliesTo: SERVER_ZONES.filter((z) => z !== "store"),
    owner: "store",
    message: "Import the store through server/retrieval/store/index.ts, not its inner files.",
  },
  {
    id: "llm-sdk",
    regex: String.raw`^@anthropic-ai/sdk(/|$)|^openai(/|$)`,
    appliesTo: ALL_ZONES,
    owner: "llm",
    message: "Only server/llm imports provider SDKs: use the provider-neutral client from server/llm/index.ts.",
  },
  {
    id: "llm-index",
    // The scripted wire server and the test support are test tools, reached directly.
    regex: String.raw`(^|/)llm/(?!index\.ts$|scripted/|test-support\.ts$)[^/]`,
    appliesTo: SERVER_ZONES.filter((z) => z !== "llm").concat(["bench"]),
    owner: "llm",
    message: "Features import server/llm through its index (server/llm/index.ts).",
  },
  {
    id: "agent-index",
    // Test support is reached directly (like server/llm's). server/review/reviewer is not server/agent:
    // no other folder under server/ is named agent.
    regex: String.raw`(^|/)agent/(?!index\.ts$|test-support\.ts$|tools/test-fixture\.ts$)[^/]`,
    appliesTo: SERVER_ZONES.filter((z) => z !== "agent").concat(["bench"]),
    owner: "agent",
    message:
      "Features import the agent (loop, tools, sandbox, locate/fingerprint, code search) through server/agent/index.ts.",
  },
  {
    id: "agent-no-review",
    regex: String.raw`(^|/)review/`,
    appliesTo: ["agent"],
    message: "server/agent is shared by every feature: it never imports server/review (review builds on the agent).",
  },
  {
    id: "review-internals",
    // The export fixtures are test support, reached directly.
    regex: String.raw`(^|/)review/(?!index\.ts$|export/testing\.ts$|reviewer/test-support\.ts$)[^/]`,
    appliesTo: SERVER_ZONES.filter((z) => z !== "review" && z !== "agent"),
    owner: "review",
    message: "server/review's files are internal: import the review feature through server/review/index.ts.",
  },
  {
    id: "review-feature",
    regex: String.raw`(^|/)review/index\.ts$`,
    appliesTo: SERVER_ZONES.filter((z) => !["review", "review-users", "agent"].includes(z)),
    allowTypeImports: true,
    owner: "review",
    message:
      "Features do not run review code: only the composition root (context.ts), the HTTP glue, tRPC routers and `argus review` use server/review (other features may import its types: import type …). Shared agent code is in server/agent.",
  },
  {
    id: "socket-io",
    regex: String.raw`^socket\.io(/|$)|^@socket\.io/`,
    appliesTo: SERVER_ZONES,
    owner: "realtime",
    message: "Only server/realtime imports socket.io on the server.",
  },
  {
    id: "redis",
    regex: String.raw`^ioredis(/|$)|^redis(/|$)|^@redis/`,
    appliesTo: ALL_ZONES,
    owner: "cluster",
    message: "Only server/cluster opens Redis connections: use the RedisLink from server/cluster/redis.ts.",
  },
  {
    id: "bullmq",
    regex: String.raw`^bullmq(/|$)`,
    appliesTo: ALL_ZONES,
    owner: "jobs",
    message: "Only server/jobs uses BullMQ: enqueue through the JobQueue interface (server/jobs/queue.ts).",
  },
  {
    id: "no-bench-e2e",
    regex: String.raw`(^|/)(bench|e2e)/`,
    appliesTo: SERVER_ZONES,
    message: "Server code never imports bench/ or e2e/ (they depend on it, not the other way round).",
  },
  {
    id: "server-app",
    // The browser's code depends on the server's types, never the other way round; a contract
    // between the two is tested from test/contracts.
    regex: String.raw`^(@/|(\.\./)+)app/`,
    appliesTo: SERVER_ZONES,
    message: "Server code never imports app/ (the browser's code); test a contract between them in test/contracts.",
  },
  {
    id: "app-server",
    regex: String.raw`^(@/|(\.\./)+)server/(?!shared/)`,
    appliesTo: ["app"],
    allowTypeImports: true,
    message:
      "app/ imports only types from server/ (import type …) and the isomorphic module server/shared/; runtime code stays on the server.",
  },
  {
    id: "shared-pure",
    // zod and sibling files only: no Node APIs, no other package, nothing outside the folder.
    regex: String.raw`^node:|^\.\./|^(?!zod(/|$)|vitest$|\./)`,
    appliesTo: ["shared"],
    message: "server/shared is isomorphic: it imports only zod and its own files (no Node APIs, no server code).",
  },
];

function rulesFor(zone) {
  const patterns = BOUNDARIES.filter((b) => b.appliesTo.includes(zone) && b.owner !== zone).map((b) => ({
    regex: b.regex,
    message: `[${b.id}] ${b.message}`,
    ...(b.allowTypeImports ? { allowTypeImports: true } : {}),
  }));
  return { "no-restricted-imports": "off", "@typescript-eslint/no-restricted-imports": ["error", { patterns }] };
}

export const boundaryConfigs = ZONES.map((zone, i) => ({
  name: `argus/boundaries/${zone.name}`,
  files: zone.files.map((g) => g.replace(/\*\*$/, "**/*.{ts,tsx,mts,mjs}")),
  ignores: ZONES.slice(0, i).flatMap((z) => z.files),
  rules: rulesFor(zone.name),
}));
