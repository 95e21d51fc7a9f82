/**
 * `argus ask <folder|zip|git-url|project-uid> "question" [--json]`: one question about a codebase,
 * answered the way the web app answers it (server/ask/answer.ts: the chat agent with the review tools,
 * citations checked against the code) and streamed to the terminal, for scripts and CI. A folder, zip
 * or git URL is imported into a temporary snapshot first; a project uid asks about that project's
 * latest imported code in DATA_DIR. The model is the environment's (LLM_PROVIDER and its key, or
 * --provider / --model); with no key configured the answer is the best code-search hits, labelled so.
 *
 * Exit codes: 0 answered; 2 usage (bad flags, an empty or too long question, code that cannot be
 * imported); 3 the model failed (the provider's error is printed).
 */
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { z } from "zod";
import { getConfig, type Config } from "../config.ts";
import { DomainError } from "../errors.ts";
import { clientOptionsFromSettings, providerSchema, type LlmClientOptions } from "../llm/index.ts";
import { OPERATOR_GIT_POLICY } from "../codebase/ingest/index.ts";
import { createIndexCache, type IndexCache } from "../retrieval/store/index.ts";
import { codeSearchFor } from "../agent/index.ts";
import { runImport } from "../snapshots/import.ts";
import { searchIndexName, searchStoreUri, snapshotDirs } from "../snapshots/storage.ts";
import { questionSchema } from "../shared/ask.ts";
import { formatZodIssues } from "../shared/zod-issues.ts";
import { answerQuestion, type AnswerOutput } from "../ask/answer.ts";
import { sourceFor } from "./ingest.ts";
import { UsageError } from "./usage.ts";

export const ASK_HELP = `Usage: argus ask <folder | archive.zip | git-url | project-uid> "question" [options]

Asks Argus one question about the code and streams the answer with its citations.
  --json                 print one JSON object (answer, citations checked against the code, usage) instead
  --provider p --model m anthropic | openai | openai-compatible (default: LLM_PROVIDER, LLM_MODEL)
  --ref r                git branch, tag or commit to check out
Without an API key in the environment the answer is the best code-search hits ("search results, no model").
Exit codes: 0 answered, 2 usage error, 3 the model failed.`;

interface Target {
  root: string;
  symbolsPath: string;
  searchCode: ReturnType<typeof codeSearchFor>;
}

async function openTarget(
  target: string,
  config: Config,
  opts: { ref?: string; quiet: boolean },
  cleanup: (() => Promise<void>)[],
): Promise<Target> {
  if (z.uuid().safeParse(target).success) {
    const { createDb } = await import("../db/client.ts");
    const db = await createDb(config.db);
    cleanup.push(() => db.$disconnect());
    const project = await db.project.findUnique({ where: { uid: target } });
    if (!project) throw new UsageError(`No project with id ${target} in ${config.dataDir}.`);
    const snapshot = project.currentSnapshotId
      ? await db.snapshot.findUnique({ where: { id: project.currentSnapshotId } })
      : null;
    if (!snapshot) throw new UsageError(`Project "${project.name}" has no imported code yet.`);
    const dirs = snapshotDirs(config.dataDir, snapshot.projectId, snapshot.id);
    const indexes = openIndexes(searchStoreUri(config), cleanup);
    return {
      root: dirs.src,
      symbolsPath: dirs.symbols,
      searchCode: codeSearchFor(config, indexes, searchIndexName(snapshot.id)),
    };
  }
  const source = await sourceFor(target, { ref: opts.ref });
  const base = await mkdtemp(path.join(os.tmpdir(), "argus-ask-"));
  cleanup.push(() => rm(base, { recursive: true, force: true }));
  const dirs = snapshotDirs(base, "cli", "snapshot");
  const uri = path.join(base, "lancedb");
  const progress = opts.quiet
    ? () => {}
    : (stage: string, f: number) => process.stderr.write(`\rimporting: ${stage} ${Math.round(f * 100)}%   `);
  await runImport(source, dirs, progress, {
    limits: config.ingestLimits,
    analysis: false,
    search: { uri, name: searchIndexName("cli") },
    git: OPERATOR_GIT_POLICY,
  }).catch((err: unknown) => {
    throw err instanceof DomainError ? new UsageError(err.message) : err;
  });
  if (!opts.quiet) process.stderr.write("\r\x1b[K");
  return {
    root: dirs.src,
    symbolsPath: dirs.symbols,
    searchCode: codeSearchFor(config, openIndexes(uri, cleanup), searchIndexName("cli")),
  };
}

function openIndexes(uri: string, cleanup: (() => Promise<void>)[]): IndexCache {
  const indexes = createIndexCache(uri);
  cleanup.unshift(() => indexes.close());
  return indexes;
}

/** The environment's model, or null when it has no key (then: search results). */
function modelFrom(config: Config, provider?: string, model?: string): LlmClientOptions | null {
  const p = provider === undefined ? undefined : providerSchema.safeParse(provider);
  if (p && !p.success) throw new UsageError(`--provider is anthropic, openai or openai-compatible, not "${provider}".`);
  const llm = clientOptionsFromSettings(config.llm, p?.data);
  if (model) llm.model = model;
  if (llm.provider === "openai-compatible" ? !llm.baseURL : !llm.apiKey) return null;
  return llm;
}

function printCitations(out: AnswerOutput) {
  if (!out.citations.length) return;
  process.stdout.write("\n\nCited:\n");
  for (const c of out.citations) {
    const where = `${c.path}:${c.line}${c.endLine > c.line ? `-${c.endLine}` : ""}`;
    const mark =
      c.status === "ok"
        ? ""
        : c.status === "missing_file"
          ? "  (no such file in this code)"
          : `  (the file has ${c.fileLines} lines)`;
    process.stdout.write(`  ${c.status === "ok" ? "✓" : "✗"} ${where}${mark}\n`);
  }
}

export async function runAskCli(argv: string[]): Promise<number> {
  const cleanup: (() => Promise<void>)[] = [];
  try {
    const { values, positionals } = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        json: { type: "boolean" },
        provider: { type: "string" },
        model: { type: "string" },
        ref: { type: "string" },
        help: { type: "boolean", short: "h" },
      },
    });
    if (values.help) {
      console.log(ASK_HELP);
      return 0;
    }
    if (positionals.length !== 2)
      throw new UsageError("Give the code (a folder, zip, git URL or project id) and one quoted question.");
    const [target, question] = positionals as [string, string];
    const checked = questionSchema.safeParse(question);
    if (!checked.success) throw new UsageError(`The question: ${formatZodIssues(checked.error, { separator: "; " })}.`);
    const config = getConfig();
    const llm = modelFrom(config, values.provider, values.model);
    const json = !!values.json;
    const code = await openTarget(target, config, { ref: values.ref, quiet: json }, cleanup);

    const controller = new AbortController();
    process.once("SIGINT", () => controller.abort(new Error("Interrupted.")));
    let streamed = false;
    const out = await answerQuestion({
      ...code,
      llm,
      question,
      signal: controller.signal,
      onEvent: (e) => {
        if (json) return;
        if (e.type === "token") {
          streamed = true;
          process.stdout.write(e.text);
        } else if (e.type === "tool_call") {
          const args = Object.entries(e.input).map(
            ([k, v]) => `${k}: ${typeof v === "string" ? v : JSON.stringify(v)}`,
          );
          process.stderr.write(`${streamed ? "\n" : ""}· ${e.name}(${args.join(", ")})\n`);
          streamed = false;
        }
      },
    });
    if (json) {
      process.stdout.write(
        `${JSON.stringify({
          question,
          mode: out.mode,
          model: out.model,
          answer: out.text,
          citations: out.citations,
          hits: out.hits,
          usage: out.usage,
          costUsd: out.costUsd ?? null,
          stopReason: out.stopReason,
          error: out.error ?? null,
          notes: out.notes,
        })}\n`,
      );
    } else {
      if (out.mode === "search") process.stdout.write(out.text);
      printCitations(out);
      const tokens = out.usage.inputTokens + out.usage.outputTokens;
      if (out.mode === "model")
        process.stderr.write(
          `\n${out.model} · ${tokens.toLocaleString("en")} tokens${out.costUsd !== undefined ? ` · $${out.costUsd.toFixed(4)}` : ""}\n`,
        );
      else process.stdout.write("\n");
    }
    if (out.error) {
      if (!json) console.error(`argus ask: the model failed: ${out.error}`);
      return 3;
    }
    return 0;
  } catch (err) {
    if (err instanceof UsageError || (err as { code?: string }).code?.startsWith("ERR_PARSE_ARGS_")) {
      console.error(`argus ask: ${(err as Error).message}\n\n${ASK_HELP}`);
      return 2;
    }
    console.error(`argus ask: the model failed: ${err instanceof Error ? err.message : String(err)}`);
    return 3;
  } finally {
    for (const fn of cleanup) await fn().catch(() => undefined);
  }
}
