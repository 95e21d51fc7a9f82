/**
 * `argus dev scripted-llm --script file.json [--port N] [--host H] [--record requests.jsonl]`:
 * serves the scripted LLM until SIGINT/SIGTERM, so the app (or a person with curl) can run against
 * it with no keys and no network. Prints the base URLs to set.
 */
import { appendFileSync, readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { z } from "zod";
import { parseScript } from "./script.ts";
import { startScriptedServer } from "./server.ts";

const USAGE = `Usage: argus dev scripted-llm --script <file.json> [--port <n>] [--host <addr>] [--record <file.jsonl>]

Serves the Anthropic Messages, OpenAI Responses and Chat Completions APIs from a script of rules
(see server/llm/scripted/script.ts). Default port 4010, host 127.0.0.1.`;

export interface CliIo {
  log: (line: string) => void;
  error: (line: string) => void;
  /** Stops the server (tests); by default SIGINT / SIGTERM do. */
  signal?: AbortSignal;
  /** Called once listening, with the server's URL. */
  onListening?: (url: string) => void;
}

export async function runScriptedLlmCli(
  argv: string[],
  io: CliIo = { log: console.log, error: console.error },
): Promise<number> {
  let values: { script?: string; port?: string; host?: string; record?: string; help?: boolean };
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        script: { type: "string" },
        port: { type: "string" },
        host: { type: "string" },
        record: { type: "string" },
        help: { type: "boolean", short: "h" },
      },
    }));
  } catch (e) {
    io.error(`${(e as Error).message}\n\n${USAGE}`);
    return 2;
  }
  if (values.help) {
    io.log(USAGE);
    return 0;
  }
  if (!values.script) {
    io.error(`Missing --script.\n\n${USAGE}`);
    return 2;
  }
  const port = values.port === undefined ? 4010 : Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    io.error(`--port: expected a port between 0 and 65535, got "${values.port}"`);
    return 2;
  }

  let script;
  try {
    script = parseScript(JSON.parse(readFileSync(values.script, "utf8")));
  } catch (e) {
    const why = e instanceof z.ZodError ? z.prettifyError(e) : (e as Error).message;
    io.error(`Cannot use script ${values.script}:\n${why}`);
    return 2;
  }

  const record = values.record;
  const server = await startScriptedServer({
    script,
    port,
    host: values.host ?? "127.0.0.1",
    onRequest: (r) => {
      io.log(
        `${r.method} ${r.path} → rule ${r.rule}${r.lastUserText ? `  "${r.lastUserText.slice(0, 60).replace(/\n/g, " ")}"` : ""}`,
      );
      if (record) appendFileSync(record, `${JSON.stringify(r)}\n`);
    },
  });
  io.log(`Scripted LLM on ${server.url} (${script.rules.length} rules)`);
  io.log(`  ANTHROPIC_BASE_URL=${server.anthropicBaseURL}`);
  io.log(`  OPENAI_BASE_URL=${server.openaiBaseURL}`);
  io.log(`  OPENAI_COMPATIBLE_BASE_URL=${server.openaiBaseURL}`);
  io.onListening?.(server.url);

  await new Promise<void>((resolve) => {
    if (io.signal) {
      if (io.signal.aborted) return resolve();
      io.signal.addEventListener("abort", () => resolve(), { once: true });
      return;
    }
    process.once("SIGINT", () => resolve());
    process.once("SIGTERM", () => resolve());
  });
  await server.close();
  return 0;
}
