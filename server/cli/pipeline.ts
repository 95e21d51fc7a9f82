/**
 * `argus pipeline build|run|list` — UltraRAG's `ultrarag build|run` (spec §8.1) on Argus's engine.
 * Paths resolve against the current directory, as UltraRAG's do. Exit codes: 0 ok, 1 the build/run
 * failed (invalid pipeline included), 2 usage error.
 *
 * `run` needs no database. With `--record` the run is also stored (pipeline_run row + events in room
 * `run:<uid>`) in the database the environment configures (DATA_DIR / DATABASE_URL), so it shows up
 * in the web app.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import { parse as parseYaml } from "yaml";
import { buildPipeline } from "../pipelines/build.ts";
import { readFrontMatter } from "../pipelines/front-matter.ts";
import type { PipelineEvent } from "../pipelines/engine/events.ts";
import { runPipeline, type LogLevel } from "../pipelines/engine/run.ts";
import type { RunModel } from "../pipelines/servers/contract.ts";
import type { LlmClientOptions } from "../llm/index.ts";
import { mcpExternalResolver } from "../pipelines/mcp/index.ts";
import { runCommand, UsageError } from "./usage.ts";

export const PIPELINE_HELP = `Usage: argus pipeline build <file.yaml>
       argus pipeline run <file.yaml> [--param <file>] [--log-level debug|info|warn|error] [--demo] [--record]
       argus pipeline list [dir]

  build        write parameter/<name>_parameter.yaml (your edited values are kept) and server/<name>_server.yaml
  run          run the pipeline; writes output/memory_<bench>_<name>_<timestamp>.json
  --param      parameter file (absolute, relative to the current directory, or to the pipeline's directory)
  --log-level  default info: one line per step on stderr; debug adds each step's result summary
  --demo       demo mode: streaming generation, tokens printed as they arrive
  --record     also store the run and its events in Argus's database (DATA_DIR / DATABASE_URL)
  list         pipelines under the directory (default: ./pipelines if it exists, else the current directory)`;

export interface CliIo {
  cwd: string;
  out: (s: string) => void;
  err: (s: string) => void;
}

const defaultIo = (): CliIo => ({
  cwd: process.cwd(),
  out: (s) => process.stdout.write(s),
  err: (s) => process.stderr.write(s),
});
const LEVELS: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

export async function runPipelineCli(argv: string[], io: CliIo = defaultIo()): Promise<number> {
  return runCommand("argus pipeline", PIPELINE_HELP, io.err, () => dispatch(argv, io));
}

async function dispatch(argv: string[], io: CliIo): Promise<number> {
  const parsed = parseArgs({
    args: argv,
    allowPositionals: true,
    strict: true,
    options: {
      param: { type: "string" },
      "log-level": { type: "string" },
      log_level: { type: "string" },
      demo: { type: "boolean" },
      is_demo: { type: "boolean" },
      record: { type: "boolean" },
      help: { type: "boolean", short: "h" },
    },
  });
  const { values, positionals } = parsed;
  const [sub, file, ...extra] = positionals;
  if (values.help) {
    io.out(`${PIPELINE_HELP}\n`);
    return 0;
  }
  if (!sub) throw new UsageError("missing subcommand");
  if (extra.length) throw new UsageError(`unexpected argument "${extra[0]}"`);
  if (sub === "list") return list(file, io);
  if (sub !== "build" && sub !== "run") throw new UsageError(`unknown subcommand "${sub}"`);
  if (!file) throw new UsageError(`missing pipeline file: argus pipeline ${sub} <file.yaml>`);

  const level = (values["log-level"] ?? values.log_level ?? "info") as string;
  if (!(level in LEVELS)) throw new UsageError(`--log-level must be debug, info, warn or error, not "${level}"`);
  const log = (l: LogLevel, message: string) => {
    if (LEVELS[l] >= LEVELS[level as LogLevel])
      io.err(`[${new Date().toTimeString().slice(0, 8)}] ${l.toUpperCase()} ${message}\n`);
  };

  if (sub === "build") {
    if (values.param || values.demo || values.record) throw new UsageError("build takes only the pipeline file");
    const r = await buildPipeline(file, { cwd: io.cwd, external: mcpExternalResolver() });
    const rel = (p: string) => path.relative(io.cwd, p) || p;
    io.out(`wrote ${rel(r.serverFile)}\nwrote ${rel(r.parameterFile)}\n`);
    if (r.merge.existed) {
      io.out(`kept ${r.merge.kept.length} value(s) from the existing parameter file`);
      if (r.merge.added.length) io.out(`; added ${r.merge.added.join(", ")}`);
      if (r.merge.dropped.length) io.out(`; dropped ${r.merge.dropped.join(", ")}`);
      io.out("\n");
    }
    return 0;
  }

  const demo = Boolean(values.demo || values.is_demo);
  const onEvent = (e: PipelineEvent) => {
    if (e.type === "token") io.out(e.content);
    else if (e.type === "step_end" && demo && e.name.endsWith(".generate")) io.out("\n");
  };
  const options = {
    cwd: io.cwd,
    ...(values.param !== undefined ? { param: values.param } : {}),
    ...(demo ? { demo: true } : {}),
  };
  if (values.record) return record(file, options, io, log);
  const { operatorEnvironment } = await import("../config.ts");
  const model = await serverModel();
  const r = await runPipeline(file, {
    ...options,
    log,
    onEvent,
    external: mcpExternalResolver(),
    // The operator's own run: UltraRAG's file access and API keys from the environment, and the
    // server's model settings for model steps that name no model.
    context: { fileAccess: "operator", operatorEnv: operatorEnvironment(), ...(model ? { model } : {}) },
  });
  if (r.memoryFile) io.out(`memory file: ${path.relative(io.cwd, r.memoryFile)}\n`);
  return 0;
}

/**
 * On the command line the server's model settings (LLM_PROVIDER, LLM_MODEL, OPENAI_COMPATIBLE_BASE_URL
 * …) stand where a web run has the workspace's connection: model steps whose parameters leave the
 * model empty use them (servers/workspace-model.ts), when they can answer (a key, or a local server).
 */
async function serverModel(): Promise<RunModel | undefined> {
  const [{ getConfig }, { clientOptionsFromSettings }] = await Promise.all([
    import("../config.ts"),
    import("../llm/index.ts"),
  ]);
  let options: LlmClientOptions;
  try {
    options = clientOptionsFromSettings(getConfig().llm);
  } catch {
    return undefined; // settings that do not read: the parameters must name the model, as in UltraRAG
  }
  if (!options.apiKey && !(options.provider === "openai-compatible" && options.baseURL)) return undefined;
  return { label: `the server's model settings · ${options.model ?? options.provider}`, options };
}

async function record(
  file: string,
  options: { cwd: string; param?: string; demo?: boolean },
  io: CliIo,
  log: (l: LogLevel, m: string) => void,
): Promise<number> {
  const [
    { getConfig, operatorEnvironment },
    { migrate },
    { createDb },
    { createEventBus },
    { createLogger },
    { createRunService },
  ] = await Promise.all([
    import("../config.ts"),
    import("../db/migrate.ts"),
    import("../db/client.ts"),
    import("../events/bus.ts"),
    import("../logger.ts"),
    import("../pipelines/runs.ts"),
  ]);
  const config = getConfig();
  await migrate(config.db);
  const db = await createDb(config.db);
  try {
    const logger = createLogger({ ...config.log, level: "warn" });
    const events = createEventBus({ db, log: logger });
    const runs = createRunService({
      db,
      events,
      log: logger,
      engine: { log, external: mcpExternalResolver() },
      operatorEnv: operatorEnvironment(),
    });
    const { uid, done } = await runs.start({ file, ...options });
    io.err(`recording run ${uid} (room run:${uid})\n`);
    const r = await done;
    if (r.memoryFile) io.out(`memory file: ${path.relative(io.cwd, r.memoryFile)}\n`);
    if (r.status !== "completed") {
      io.err(`argus pipeline: ${r.error}\n`);
      return 1;
    }
    return 0;
  } finally {
    await db.$disconnect();
  }
}

const SKIP_DIRS = new Set([
  "node_modules",
  ".git",
  "output",
  "parameter",
  "server",
  "servers",
  "logs",
  "data",
  "prompt",
  ".next",
]);

/** YAML files with top-level `servers:` and `pipeline:`, up to 4 directories deep. */
function list(dirArg: string | undefined, io: CliIo): number {
  const fromPipelines = path.join(io.cwd, "pipelines");
  const root = dirArg
    ? path.resolve(io.cwd, dirArg)
    : statSync(fromPipelines, { throwIfNoEntry: false })?.isDirectory()
      ? fromPipelines
      : io.cwd;
  if (!statSync(root, { throwIfNoEntry: false })?.isDirectory()) throw new UsageError(`${dirArg} is not a directory`);
  const found: string[] = [];
  const walk = (dir: string, depth: number) => {
    for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) {
        if (depth < 4 && !SKIP_DIRS.has(entry.name) && !entry.name.startsWith(".")) walk(full, depth + 1);
      } else if (/\.ya?ml$/.test(entry.name) && isPipeline(full)) found.push(full);
    }
  };
  walk(root, 0);
  if (found.length === 0) {
    io.out(`No pipelines under ${path.relative(io.cwd, root) || "."}\n`);
    return 0;
  }
  for (const f of found) {
    const dir = path.dirname(f);
    const stem = path.basename(f).replace(/\.ya?ml$/, "");
    const built = statSync(path.join(dir, "server", `${stem}_server.yaml`), { throwIfNoEntry: false })
      ? "built"
      : "not built";
    const meta = readFrontMatter(readFileSync(f, "utf8"));
    const about = meta
      ? `\t${meta.title}\tneeds: ${meta.needs}${meta.tags.length ? `\t[${meta.tags.join(", ")}]` : ""}`
      : "";
    io.out(`${path.relative(io.cwd, f)}\t${built}${about}\n`);
  }
  return 0;
}

function isPipeline(file: string): boolean {
  try {
    if (statSync(file).size > 1024 * 1024) return false;
    const doc = parseYaml(readFileSync(file, "utf8"), { maxAliasCount: 100 }) as unknown;
    return doc !== null && typeof doc === "object" && "servers" in doc && "pipeline" in doc;
  } catch {
    return false;
  }
}
