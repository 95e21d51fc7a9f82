/**
 * The `argus` command. Each command goes through the same services as the web app.
 * Later issues add their commands here (review, search, pipeline, mcp …).
 */
import { parseArgs } from "node:util";
import { ConfigError, getConfig, setProcessEnv } from "../config.ts";
import { migrate } from "../db/migrate.ts";
import { buildIfNeeded } from "./build.ts";
import { UsageError } from "./usage.ts";

const HELP = `Usage: argus <command> [options]

Commands:
  start [--role all|web|worker]
                     Build the web UI if needed, apply migrations, seed, and serve on PORT (default 3000).
                     --role web serves the app and queues jobs; --role worker runs the jobs (health on
                     PORT); both need REDIS_URL and PostgreSQL (docs/deploy.md). Default: all in one
  dev                Serve with hot reload (Next.js development mode)
  build              Build the web UI now
  ingest <folder|zip|git-url> [--ref r] [--json]
                     Import code as the web app does and print its summary (files, languages,
                     symbols, static findings by severity)
  review <folder|zip|git-url> [--engine static|agent] [--diff base..head] [--format md|sarif|json] [--out f] [--fail-on high]
                     Review code for CI (exit 1 when findings at or above --fail-on exist); --help for all options
  ask <folder|zip|git-url|project-uid> "question" [--json] [--provider p --model m]
                     Ask Argus about the code; the answer streams with its citations (exit 3: the model failed)
  search <folder|project-uid> (--query "…" | --queries f.jsonl) [--mode m] [-k n] [--json]
                     Search code (hybrid, full text or vector); batch mode prints one JSON line per query
  pipeline build|run <file.yaml> [--param f] [--log-level l] [--demo] [--record]
                     Build or run an UltraRAG pipeline (paths resolve against the current directory)
  pipeline list [dir]
                     List the pipelines under ./pipelines (or dir)
  show case <memory.json> [--case n] [--json]
                     Show a run's memory file one case per item, step by step
  mcp serve <server> [--http port] [--host addr]
                     Expose a built-in pipeline server to MCP clients over stdio (default) or Streamable HTTP
  db migrate         Apply pending database migrations (SQLite by default; PostgreSQL when DATABASE_URL is postgres://…)
  db seed            Seed the built-in review prompts into every workspace
  dev scripted-llm --script <file.json> [--port N] [--record <file.jsonl>]
                     Serve a scripted LLM speaking the Anthropic, OpenAI Responses and Chat
                     Completions wire formats (for tests and offline runs; see server/llm/README.md)

Options:
  -h, --help         Show this help

Configuration comes from environment variables; see .env.example.`;

async function main(argv: string[]): Promise<number> {
  const { positionals, values } = parseArgs({
    args: argv,
    allowPositionals: true,
    strict: false,
    options: { help: { type: "boolean", short: "h" } },
  });
  const [command, sub] = positionals;
  // Subcommands with options of their own answer --help themselves.
  const ownHelp =
    (command === "dev" && sub === "scripted-llm") ||
    command === "ingest" ||
    command === "search" ||
    command === "ask" ||
    command === "review" ||
    command === "pipeline" ||
    command === "show" ||
    command === "mcp";
  if ((values.help && !ownHelp) || !command || command === "help") {
    console.log(HELP);
    return command || values.help ? 0 : 2;
  }
  switch (command) {
    case "start": {
      setProcessEnv("NODE_ENV", "production", true);
      const config = getConfig();
      const { repoRoot, roleRefusal, ROLES, startServer } = await import("../main.ts");
      const role = parseArgs({ args: argv.slice(argv.indexOf("start") + 1), options: { role: { type: "string" } } })
        .values.role;
      if (role !== undefined && !(ROLES as readonly string[]).includes(role))
        throw new UsageError(`--role must be one of ${ROLES.join(", ")}; got "${role}".`);
      const chosen = (role ?? "all") as (typeof ROLES)[number];
      const refusal = roleRefusal(chosen, config);
      if (refusal) throw new Error(refusal);
      // A worker serves no pages: it needs no web UI build.
      if (chosen !== "worker") buildIfNeeded(repoRoot, (m) => console.log(m));
      const server = await startServer({ config, role: chosen });
      await waitForSignal(server.close);
      return 0;
    }
    case "dev": {
      if (sub === "scripted-llm") {
        const { runScriptedLlmCli } = await import("../llm/scripted/cli.ts");
        return runScriptedLlmCli(argv.slice(argv.indexOf("scripted-llm") + 1));
      }
      if (sub)
        throw new UsageError(
          `Unknown dev command "${sub}". Try: argus dev, or argus dev scripted-llm --script file.json`,
        );
      setProcessEnv("NODE_ENV", "development");
      const config = getConfig();
      const { startServer } = await import("../main.ts");
      const server = await startServer({ config, dev: true });
      await waitForSignal(server.close);
      return 0;
    }
    case "build": {
      const { repoRoot } = await import("../main.ts");
      if (!buildIfNeeded(repoRoot, (m) => console.log(m))) console.log("The web UI build is up to date.");
      return 0;
    }
    case "ingest": {
      const { runIngestCli } = await import("./ingest.ts");
      return runIngestCli(argv.slice(argv.indexOf("ingest") + 1));
    }
    case "review": {
      const { runReviewCli } = await import("./review.ts");
      return runReviewCli(argv.slice(argv.indexOf("review") + 1));
    }
    case "ask": {
      const { runAskCli } = await import("./ask.ts");
      return runAskCli(argv.slice(argv.indexOf("ask") + 1));
    }
    case "search": {
      const { runSearchCli } = await import("./search.ts");
      return runSearchCli(argv.slice(argv.indexOf("search") + 1));
    }
    case "pipeline": {
      const { runPipelineCli } = await import("./pipeline.ts");
      return runPipelineCli(argv.slice(argv.indexOf("pipeline") + 1));
    }
    case "show": {
      const { runShowCli } = await import("./show.ts");
      return runShowCli(argv.slice(argv.indexOf("show") + 1));
    }
    case "mcp": {
      const { runMcpCli } = await import("./mcp.ts");
      return runMcpCli(argv.slice(argv.indexOf("mcp") + 1));
    }
    case "db": {
      const config = getConfig();
      if (sub === "migrate") {
        const applied = await migrate(config.db);
        console.log(
          applied.length
            ? `Applied ${applied.length} migration(s): ${applied.join(", ")}`
            : "The database is up to date.",
        );
        return 0;
      }
      if (sub === "seed") {
        const [{ createDb }, { seedAllWorkspaces }] = await Promise.all([
          import("../db/client.ts"),
          import("../prompts/builtins.ts"),
        ]);
        await migrate(config.db);
        const db = await createDb(config.db);
        const r = await seedAllWorkspaces(db);
        await db.$disconnect();
        console.log(`Built-in prompts: ${r.inserted} inserted, ${r.updated} updated.`);
        return 0;
      }
      throw new UsageError(
        sub ? `Unknown db command "${sub}". Try: argus db migrate` : "Missing db command. Try: argus db migrate",
      );
    }
    default:
      throw new UsageError(`Unknown command "${command}".`);
  }
}

function waitForSignal(close: () => Promise<void>): Promise<void> {
  return new Promise((resolve) => {
    const stop = () => void close().finally(resolve);
    process.once("SIGINT", stop);
    process.once("SIGTERM", stop);
  });
}

try {
  process.exitCode = await main(process.argv.slice(2));
} catch (err) {
  if (err instanceof ConfigError) {
    console.error(`argus: ${err.message}\nFix the variable(s) above (see .env.example) and try again.`);
    process.exitCode = 2;
  } else if (err instanceof UsageError) {
    console.error(`argus: ${err.message}\n\n${HELP}`);
    process.exitCode = 2;
  } else {
    console.error(`argus: ${err instanceof Error ? err.message : String(err)}`);
    process.exitCode = 1;
  }
}
