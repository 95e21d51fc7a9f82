/**
 * The one place that reads process.env. Every variable is declared here with its type, default and
 * meaning (mirrored in .env.example); a bad value stops start-up with a message naming the variable.
 */
import { isIP, isIPv6 } from "node:net";
import path from "node:path";
import { z } from "zod";
import { llmEnvShape, llmSettingsFromEnv, type LlmSettings } from "./llm/index.ts";
import { embedderEnvShape, embedderSettingsFromEnv, type EmbedderSettings } from "./retrieval/embed/settings.ts";
import { parseAllowEntry } from "./net/outbound.ts";

const port = z.coerce
  .number({ error: "a port number" })
  .int("a whole number")
  .min(0, "a port between 0 and 65535")
  .max(65535, "a port between 0 and 65535");

/** A list variable's entries: split, trimmed, blanks dropped. */
function splitList(value: string, separator: string): string[] {
  return value
    .split(separator)
    .map((s) => s.trim())
    .filter((s) => s !== "");
}

/** A host name, an IPv4 address or an IPv6 address (bracketed or not) — no scheme, port or path. */
const isHostEntry = (h: string) =>
  /^[A-Za-z0-9_](?:[A-Za-z0-9_.-]*[A-Za-z0-9_.])?$/.test(h) || isIPv6(h.replace(/^\[(.*)\]$/, "$1"));

const envSchema = z.object({
  NODE_ENV: z.enum(["development", "production", "test"]).default("production"),
  PORT: port.default(3000),
  HOST: z.string().min(1).default("0.0.0.0"),
  /** Public URL the browser uses; cookies, invite links and auth origin checks are derived from it. */
  PUBLIC_URL: z.url({ protocol: /^https?$/, error: "an http(s) URL such as https://argus.example.com" }).optional(),
  DATA_DIR: z.string().min(1).default("./data"),
  /** Unset: embedded SQLite at DATA_DIR/argus.db. postgres://… or postgresql://…: PostgreSQL. */
  DATABASE_URL: z
    .string()
    .refine((v) => /^(postgres(ql)?:\/\/|file:)/.test(v), {
      error: "a postgres://user@host:port/db URL, or file:/path/to/argus.db for SQLite",
    })
    .optional(),
  /** Where LanceDB keeps search indexes; default DATA_DIR/lancedb. A path, or an object-store URI (s3://…). */
  LANCEDB_URI: z.string().min(1).optional(),
  /** Unset: jobs run in this process (the embedded default). redis://… or rediss://…: BullMQ jobs,
   * Socket.IO fan-out, presence and rate limits shared by every node. */
  REDIS_URL: z
    .string()
    .refine((v) => /^rediss?:\/\/[^/?#]/.test(v), { error: "a redis://host:6379 (or rediss://) URL" })
    .optional(),
  /** Prefix of every Redis key and channel Argus uses (several installs can share one Redis). */
  REDIS_PREFIX: z
    .string()
    .regex(/^[A-Za-z0-9_.-]{1,64}$/, "1–64 letters, digits, _ . or -")
    .default("argus"),
  /** How long a worker's lease on a running job lasts without renewal: a worker that died is noticed
   * after about this long, and its job taken up again (or failed with the reason). */
  JOB_LEASE_SECONDS: z.coerce
    .number({ error: "a number of seconds" })
    .min(1, "at least 1 second")
    .max(3600, "at most 3600 seconds")
    .default(30),
  /** Other origins (besides PUBLIC_URL) whose pages may call the API and open sockets; comma-separated. */
  ALLOWED_ORIGINS: z
    .string()
    .transform((v) =>
      v
        .split(",")
        .map((s) => s.trim())
        .filter(Boolean),
    )
    .pipe(z.array(z.url({ protocol: /^https?$/, error: "a comma-separated list of http(s) origins" })))
    .optional(),
  /** Reverse proxies whose X-Forwarded-For is believed (IPs or CIDR ranges, comma-separated). */
  TRUSTED_PROXIES: z
    .string()
    .transform((v) =>
      v
        .split(",")
        .map((s) => s.trim())
        .filter(Boolean),
    )
    .pipe(
      z.array(
        z.string().refine(isIpOrCidr, {
          error: "a comma-separated list of IP addresses or CIDR ranges such as 10.0.0.0/8",
        }),
      ),
    )
    .optional(),
  /** Presets the one-time setup link's token (automated installs); otherwise one is drawn at start. */
  SETUP_TOKEN: z
    .string()
    .min(16, "at least 16 characters")
    .max(200, "at most 200 characters")
    .regex(/^[\w.~-]+$/, "letters, digits and - _ . ~ only (it goes into a URL)")
    .optional(),
  /** Secret for signing session cookies (≥ 32 characters). Generated into DATA_DIR when unset. */
  AUTH_SECRET: z.string().min(32, "at least 32 characters").optional(),
  LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
  /** pretty = human-readable lines; json = one JSON object per line. Default: pretty in development. */
  LOG_FORMAT: z.enum(["pretty", "json"]).optional(),
  /** Where Argus looks for a local Ollama to offer its models in Settings. Set, its host:port is
   * also allowed as a connection's base URL (the default one is not: it would open localhost). */
  OLLAMA_URL: z.url({ protocol: /^https?$/, error: "an http(s) URL such as http://localhost:11434" }).optional(),
  /** host:port entries that URLs users choose may reach although internal (server/net/outbound.ts). */
  OUTBOUND_ALLOWED_HOSTS: z
    .string()
    .refine((v) => splitList(v, ",").every((e) => parseAllowEntry(e)?.port), {
      error:
        "a comma-separated list of host:port entries, without scheme or path (e.g. llm.internal:8000,10.0.0.7:11434,[fd00::5]:443)",
    })
    .optional(),
  /** Ingest caps (server/codebase/ingest/limits.ts); each refusal message names the variable to raise. */
  INGEST_MAX_TOTAL_MB: z.coerce
    .number({ error: "a number of megabytes" })
    .positive("a positive number of megabytes")
    .optional(),
  INGEST_MAX_FILES: z.coerce
    .number({ error: "a whole number" })
    .int("a whole number")
    .positive("a positive number")
    .optional(),
  INGEST_MAX_FILE_MB: z.coerce
    .number({ error: "a number of megabytes" })
    .positive("a positive number of megabytes")
    .optional(),
  INGEST_MAX_COMPRESSION_RATIO: z.coerce.number({ error: "a number" }).min(1, "at least 1").optional(),
  INGEST_MAX_ARCHIVE_ENTRIES: z.coerce
    .number({ error: "a whole number" })
    .int("a whole number")
    .positive("a positive number")
    .optional(),
  INDEX_MAX_FILE_KB: z.coerce
    .number({ error: "a number of kilobytes" })
    .positive("a positive number of kilobytes")
    .optional(),
  INGEST_GIT_TIMEOUT_SECONDS: z.coerce
    .number({ error: "a number of seconds" })
    .positive("a positive number of seconds")
    .optional(),
  /** true: ESLint uses a project's own flat config (runs the project's JavaScript on the server). */
  ESLINT_USE_PROJECT_CONFIG: z.enum(["true", "false"], { error: "true or false" }).default("false"),
  /** Git hosts a user's import may reach although they resolve to internal addresses (SSRF guard). */
  GIT_ALLOWED_HOSTS: z
    .string()
    .refine((v) => splitList(v, ",").every(isHostEntry), {
      error:
        "a comma-separated list of host names or IP addresses, without scheme or port (e.g. gitlab.internal,10.0.0.7)",
    })
    .optional(),
  /** Deprecated (OUTBOUND_ALLOWED_HOSTS): hosts, any port, that URLs users choose may reach although
   * they resolve to internal addresses. Still read, with a line in the log. */
  PIPELINES_ALLOWED_HOSTS: z
    .string()
    .refine((v) => splitList(v, ",").every(isHostEntry), {
      error:
        "a comma-separated list of host names or IP addresses, without scheme or port (e.g. llm.internal,10.0.0.7)",
    })
    .optional(),
  /** true: ssh clones may use the server's own keys, agent and ~/.ssh/config. */
  GIT_SSH_USE_SERVER_KEYS: z.enum(["true", "false"], { error: "true or false" }).default("false"),
  /** Folders an owner may import from the server's disk (path list); unset: server-folder import is off. */
  IMPORT_PATH_ROOTS: z
    .string()
    .refine((v) => splitList(v, path.delimiter).every((p) => path.isAbsolute(p)), {
      error: `absolute folder paths separated by "${path.delimiter}" (e.g. /srv/code${path.delimiter}/home/shared/repos)`,
    })
    .optional(),
  /** Knowledge-base upload caps (server/knowledge/upload.ts); each refusal names the variable to raise. */
  KNOWLEDGE_MAX_FILE_MB: z.coerce
    .number({ error: "a number of megabytes" })
    .positive("a positive number of megabytes")
    .optional(),
  KNOWLEDGE_MAX_UPLOAD_MB: z.coerce
    .number({ error: "a number of megabytes" })
    .positive("a positive number of megabytes")
    .optional(),
  KNOWLEDGE_MAX_FILES: z.coerce
    .number({ error: "a whole number" })
    .int("a whole number")
    .positive("a positive number")
    .optional(),
  /** true: pipelines run from the web app may start processes (`stdio:` servers, UltraRAG `.py`
   * servers) — for workspace owners only. The CLI always may (UltraRAG's behaviour). */
  PIPELINES_ALLOW_PROCESSES: z.enum(["true", "false"], { error: "true or false" }).default("false"),
  /** LLM provider, model and connection settings (declared next to their code in server/llm). */
  ...llmEnvShape,
  ...embedderEnvShape,
});

export type Env = z.infer<typeof envSchema>;

export type DbProvider = "sqlite" | "postgres";

export interface Config {
  env: Env["NODE_ENV"];
  port: number;
  host: string;
  publicUrl: string | undefined;
  dataDir: string;
  db: { provider: DbProvider; url: string };
  /** LanceDB's location (a directory by default, under DATA_DIR). */
  lancedbUri: string;
  /** Set with REDIS_URL: jobs on BullMQ, rooms across nodes. Unset: everything in this process. */
  redis: { url: string; prefix: string } | undefined;
  /** A worker's lease on a running job (BullMQ's lock): renewed while it runs, lost when it dies. */
  jobs: { leaseMs: number };
  authSecret: string | undefined;
  /** Origins allowed to make state-changing requests and open sockets (PUBLIC_URL's first). Empty:
   * the request's own host. */
  allowedOrigins: string[];
  /** Proxies (IP or CIDR) whose X-Forwarded-For names the client; empty: the socket address is the client. */
  trustedProxies: string[];
  /** Operator-chosen setup token, or undefined (a random one is drawn at start). */
  setupToken: string | undefined;
  log: { level: Env["LOG_LEVEL"]; format: "pretty" | "json" };
  llm: LlmSettings;
  /** Which embedder new search indexes use (hash by default) and its settings. */
  embeddings: EmbedderSettings;
  /** OLLAMA_URL, or the default local address (looked at for Settings' model list only). */
  ollamaUrl: string;
  /** Where URLs that users choose may go (server/net/outbound.ts): the allow list's entries. */
  outbound: { allow: string[] };
  /** Lines for the log at start: settings still read but to be replaced. */
  deprecations: string[];
  projectEslintConfig: boolean;
  /** Where git imports may go (server/codebase/ingest/git-network.ts). */
  git: { allowedHosts: string[]; useServerSshKeys: boolean };
  /** Absolute paths of the folders an owner may import from (compared by real path); empty: off. */
  importPathRoots: string[];
  /** What pipelines run from the web app may do (server/pipelines/process-policy.ts). */
  pipelines: { allowProcesses: boolean };
  /** Overrides of the knowledge-base upload caps (unset keys keep their defaults). */
  knowledgeUploadLimits: Partial<Record<"maxFileBytes" | "maxUploadBytes" | "maxFiles", number>>;
  /** Overrides of the ingest caps (unset keys keep their defaults). */
  ingestLimits: Partial<
    Record<
      | "maxTotalBytes"
      | "maxFiles"
      | "maxFileBytes"
      | "maxCompressionRatio"
      | "maxArchiveEntries"
      | "indexMaxFileBytes"
      | "gitTimeoutMs",
      number
    >
  >;
}

export class ConfigError extends Error {
  constructor(public readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join("\n")}`);
    this.name = "ConfigError";
  }
}

/** Parses the environment (process.env by default). Throws ConfigError naming each bad variable. */
export function loadConfig(source: Record<string, string | undefined> = process.env): Config {
  // Empty (or blank) values mean "not set", as in .env files; other values lose stray whitespace.
  const cleaned = Object.fromEntries(
    Object.entries(source)
      .map(([k, v]) => [k, v?.trim()] as const)
      .filter(([, v]) => v !== undefined && v !== ""),
  );
  const parsed = envSchema.safeParse(cleaned);
  if (!parsed.success) {
    throw new ConfigError(
      parsed.error.issues.map((issue) => {
        // A list variable's bad item is reported under the variable's own name, with its whole value.
        const name = String(issue.path[0]);
        const got = cleaned[name];
        return `${name}: expected ${issue.message}${got === undefined ? "" : `, got "${got}"`}`;
      }),
    );
  }
  const env = parsed.data;
  const dataDir = path.resolve(env.DATA_DIR);
  const url = env.DATABASE_URL ?? `file:${path.join(dataDir, "argus.db")}`;
  return {
    env: env.NODE_ENV,
    port: env.PORT,
    host: env.HOST,
    publicUrl: env.PUBLIC_URL?.replace(/\/$/, ""),
    dataDir,
    db: { provider: url.startsWith("file:") ? "sqlite" : "postgres", url },
    lancedbUri: env.LANCEDB_URI ?? path.join(dataDir, "lancedb"),
    redis: env.REDIS_URL ? { url: env.REDIS_URL, prefix: env.REDIS_PREFIX } : undefined,
    jobs: { leaseMs: Math.round(env.JOB_LEASE_SECONDS * 1000) },
    authSecret: env.AUTH_SECRET,
    allowedOrigins: [
      ...new Set([env.PUBLIC_URL, ...(env.ALLOWED_ORIGINS ?? [])].filter((u) => u !== undefined).map(originOf)),
    ],
    trustedProxies: env.TRUSTED_PROXIES ?? [],
    setupToken: env.SETUP_TOKEN,
    log: {
      level: env.LOG_LEVEL,
      format: env.LOG_FORMAT ?? (env.NODE_ENV === "development" ? "pretty" : "json"),
    },
    llm: llmSettingsFromEnv(env),
    embeddings: embedderSettingsFromEnv(env, dataDir),
    ollamaUrl: (env.OLLAMA_URL ?? DEFAULT_OLLAMA_URL).replace(/\/$/, ""),
    outbound: { allow: outboundAllowList(env) },
    deprecations: env.PIPELINES_ALLOWED_HOSTS
      ? [
          "PIPELINES_ALLOWED_HOSTS is deprecated and still read (its hosts are allowed on every port): list host:port entries in OUTBOUND_ALLOWED_HOSTS instead",
        ]
      : [],
    projectEslintConfig: env.ESLINT_USE_PROJECT_CONFIG === "true",
    git: {
      allowedHosts: splitList(env.GIT_ALLOWED_HOSTS ?? "", ","),
      useServerSshKeys: env.GIT_SSH_USE_SERVER_KEYS === "true",
    },
    importPathRoots: splitList(env.IMPORT_PATH_ROOTS ?? "", path.delimiter).map((p) => path.resolve(p)),
    pipelines: {
      allowProcesses: env.PIPELINES_ALLOW_PROCESSES === "true",
    },
    knowledgeUploadLimits: dropUndefined({
      maxFileBytes: env.KNOWLEDGE_MAX_FILE_MB && Math.round(env.KNOWLEDGE_MAX_FILE_MB * MiB),
      maxUploadBytes: env.KNOWLEDGE_MAX_UPLOAD_MB && Math.round(env.KNOWLEDGE_MAX_UPLOAD_MB * MiB),
      maxFiles: env.KNOWLEDGE_MAX_FILES,
    }),
    ingestLimits: dropUndefined({
      maxTotalBytes: env.INGEST_MAX_TOTAL_MB && Math.round(env.INGEST_MAX_TOTAL_MB * MiB),
      maxFiles: env.INGEST_MAX_FILES,
      maxFileBytes: env.INGEST_MAX_FILE_MB && Math.round(env.INGEST_MAX_FILE_MB * MiB),
      maxCompressionRatio: env.INGEST_MAX_COMPRESSION_RATIO,
      maxArchiveEntries: env.INGEST_MAX_ARCHIVE_ENTRIES,
      indexMaxFileBytes: env.INDEX_MAX_FILE_KB && Math.round(env.INDEX_MAX_FILE_KB * 1024),
      gitTimeoutMs: env.INGEST_GIT_TIMEOUT_SECONDS && Math.round(env.INGEST_GIT_TIMEOUT_SECONDS * 1000),
    }),
  };
}

const MiB = 1024 * 1024;
const DEFAULT_OLLAMA_URL = "http://localhost:11434";

/** OUTBOUND_ALLOWED_HOSTS, the deprecated PIPELINES_ALLOWED_HOSTS (any port), and OLLAMA_URL when set. */
function outboundAllowList(env: Env): string[] {
  const allow = [
    ...splitList(env.OUTBOUND_ALLOWED_HOSTS ?? "", ","),
    ...splitList(env.PIPELINES_ALLOWED_HOSTS ?? "", ","),
  ];
  if (env.OLLAMA_URL) {
    const u = new URL(env.OLLAMA_URL);
    allow.push(`${u.hostname}:${u.port || (u.protocol === "https:" ? "443" : "80")}`);
  }
  return allow;
}

/**
 * The environment handed to a child process Argus starts (git, ESLint, bandit, `next build`, an
 * MCP stdio server): the server's own, plus `extra`. The one other place process.env is read.
 */
export function childProcessEnv(extra: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  return { ...process.env, ...extra };
}

/** The operator's environment as command-line pipeline runs see it (UltraRAG fills blank API keys from it). */
export function operatorEnvironment(): Readonly<Record<string, string | undefined>> {
  return { ...process.env };
}

/** Sets a variable of this process before something that reads it starts (NODE_ENV for Next, LanceDB's threads). */
export function setProcessEnv(name: string, value: string, onlyIfUnset = false): void {
  if (onlyIfUnset && process.env[name]) return;
  process.env[name] = value;
}

/** "https://Argus.example.com:443/x" → "https://argus.example.com": what a browser sends as Origin. */
function originOf(url: string): string {
  return new URL(url).origin;
}

function isIpOrCidr(value: string): boolean {
  const [address, prefix, ...rest] = value.split("/");
  const family = isIP(address ?? "");
  if (!family || rest.length) return false;
  if (prefix === undefined) return true;
  return /^\d{1,3}$/.test(prefix) && Number(prefix) <= (family === 4 ? 32 : 128);
}

function dropUndefined<T extends Record<string, number | undefined>>(o: T): { [K in keyof T]?: number } {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as { [K in keyof T]?: number };
}

/** The process's configuration, parsed once. */
export function getConfig(): Config {
  const key = Symbol.for("argus.config");
  const store = globalThis as unknown as Record<symbol, Config | undefined>;
  store[key] ??= loadConfig();
  return store[key];
}

/** Path of the SQLite file for a file: URL. */
export function sqlitePath(url: string): string {
  return path.resolve(url.replace(/^file:/, ""));
}
