/**
 * `argus search <folder | project-uid> (--query "…" | --queries file.jsonl) [--mode m] [-k n] [--json]`
 * A folder is imported into a temporary snapshot first (same runImport as the web app, without the
 * ESLint pass); a project uid searches that project's latest ready snapshot in DATA_DIR.
 * Batch mode prints one JSON line per query with its ranked file:line hits.
 */
import { queryEmbedderFor } from "../retrieval/query-embedder.ts";
import { mkdtemp, readFile, rm, stat } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { z } from "zod";
import { getConfig } from "../config.ts";
import { DomainError } from "../errors.ts";
import { search, type SearchResult } from "../retrieval/search.ts";
import { NO_GOOD_MATCH_TEXT, noGoodMatch } from "../shared/search-match.ts";
import { connect, openChunkIndex, type ChunkIndex, type Store } from "../retrieval/store/index.ts";
import { runImport } from "../snapshots/import.ts";
import { searchIndexName, searchStoreUri, snapshotDirs } from "../snapshots/storage.ts";

export const SEARCH_HELP = `Usage: argus search <folder | project-uid> (--query "…" | --queries file.jsonl) [--mode hybrid|fulltext|vector] [-k 10] [--json]

  --queries  a JSONL file: one {"query": "…", "id": …} (or a JSON string) per line; prints one JSON
             line per query: {"id", "query", "noGoodMatch", "hits": [{"file", "line", "endLine", "symbol",
             "score", "relevance", "match"}]}

Each hit is labelled a strong or a weak match (its relevance, 0–1, comparable across queries); a
query without a strong hit says "No good match" and lists the nearest hits.`;

const modeSchema = z.enum(["hybrid", "fulltext", "vector"]);
const queryLine = z.union([z.string(), z.object({ query: z.string(), id: z.unknown().optional() })]);

async function readQueries(file: string): Promise<{ id?: unknown; query: string }[]> {
  const lines = (await readFile(file, "utf8")).split("\n").filter((l) => l.trim() !== "");
  return lines.map((line, i) => {
    let parsed: unknown;
    try {
      parsed = JSON.parse(line);
    } catch {
      throw new DomainError("invalid", `${file}:${i + 1}: not JSON. Each line is {"query": "…"} or a JSON string.`);
    }
    const q = queryLine.safeParse(parsed);
    if (!q.success) throw new DomainError("invalid", `${file}:${i + 1}: expected {"query": "…"} or a JSON string.`);
    return typeof q.data === "string" ? { query: q.data } : q.data;
  });
}

/** The index to search: a project's latest ready snapshot, or a folder imported into a temp dir. */
async function openTarget(
  target: string,
  cleanup: (() => Promise<void>)[],
  quiet: boolean,
): Promise<{ store: Store; index: ChunkIndex }> {
  const config = getConfig();
  if (z.uuid().safeParse(target).success) {
    const { createDb } = await import("../db/client.ts");
    const db = await createDb(config.db);
    cleanup.push(() => db.$disconnect());
    const project = await db.project.findUnique({
      where: { uid: target },
      include: { snapshots: { where: { status: "ready" }, orderBy: [{ createdAt: "desc" }, { id: "desc" }], take: 1 } },
    });
    if (!project) throw new DomainError("not_found", `No project with id ${target} in ${config.dataDir}.`);
    const snapshot = project.snapshots[0];
    if (!snapshot) throw new DomainError("not_found", `Project "${project.name}" has no imported code yet.`);
    const store = await connect(searchStoreUri(config));
    const index = await openChunkIndex(store, searchIndexName(snapshot.id));
    if (!index)
      throw new DomainError(
        "not_found",
        `Project "${project.name}"'s snapshot has no search index; import the code again.`,
      );
    return { store, index };
  }
  if (!(await stat(target).catch(() => null))?.isDirectory())
    throw new DomainError("invalid", `${target} is neither a folder nor a project id.`);
  const base = await mkdtemp(path.join(os.tmpdir(), "argus-search-"));
  cleanup.push(() => rm(base, { recursive: true, force: true }));
  const dirs = snapshotDirs(base, "cli", "snapshot");
  const search = { uri: path.join(base, "lancedb"), name: "cli" };
  const progress = quiet
    ? () => {}
    : (stage: string, f: number) => process.stderr.write(`\rindexing ${target}: ${stage} ${Math.round(f * 100)}%   `);
  await runImport({ kind: "path", path: path.resolve(target) }, dirs, progress, {
    limits: config.ingestLimits,
    analysis: false,
    search,
  });
  if (!quiet) process.stderr.write("\r\x1b[K");
  const store = await connect(search.uri);
  const index = await openChunkIndex(store, search.name);
  if (!index) throw new Error("the search index was not built");
  return { store, index };
}

function printHuman(query: string, hits: SearchResult[]) {
  if (!hits.length) console.log(`Nothing matches "${query}".`);
  else if (noGoodMatch(hits)) console.log(`${NO_GOOD_MATCH_TEXT} for "${query}". The nearest hits:`);
  else console.log(`${hits.length} hit${hits.length === 1 ? "" : "s"} for "${query}":`);
  for (const h of hits)
    console.log(
      `  ${h.match === "strong" ? "strong" : "weak  "}  ${h.file}:${h.startLine}-${h.endLine}${h.symbolPath ? `  ${h.symbolPath}` : ""}  (relevance ${h.relevance.toFixed(2)})`,
    );
}

export async function runSearchCli(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      query: { type: "string" },
      queries: { type: "string" },
      mode: { type: "string", default: "hybrid" },
      k: { type: "string", short: "k", default: "10" },
      json: { type: "boolean" },
      help: { type: "boolean", short: "h" },
    },
  });
  if (values.help) {
    console.log(SEARCH_HELP);
    return 0;
  }
  const mode = modeSchema.safeParse(values.mode);
  const k = Number(values.k);
  if (
    positionals.length !== 1 ||
    !!values.query === !!values.queries ||
    !mode.success ||
    !Number.isInteger(k) ||
    k < 1 ||
    k > 1000
  ) {
    console.error(
      `argus search: give one folder or project id, exactly one of --query or --queries, a mode (hybrid, fulltext, vector) and -k between 1 and 1000.\n\n${SEARCH_HELP}`,
    );
    return 2;
  }
  const cleanup: (() => Promise<void>)[] = [];
  try {
    const batch = values.queries ? await readQueries(values.queries) : [{ query: values.query! }];
    const { store, index } = await openTarget(positionals[0]!, cleanup, !!values.json || !!values.queries);
    cleanup.unshift(async () => store.close());
    const embedder = await queryEmbedderFor(index, getConfig().embeddings);
    for (const q of batch) {
      let hits: SearchResult[];
      try {
        hits = await search(index, q.query, { mode: mode.data, k, embedder });
      } catch (err) {
        if (!(err instanceof DomainError) || !values.queries) throw err;
        console.log(JSON.stringify({ id: q.id, query: q.query, error: err.message }));
        continue;
      }
      if (values.json || values.queries) {
        console.log(
          JSON.stringify({
            id: q.id,
            query: q.query,
            noGoodMatch: noGoodMatch(hits),
            hits: hits.map((h) => ({
              file: h.file,
              line: h.startLine,
              endLine: h.endLine,
              symbol: h.symbolPath,
              score: h.score,
              relevance: h.relevance,
              match: h.match,
            })),
          }),
        );
      } else printHuman(q.query, hits);
    }
    return 0;
  } catch (err) {
    console.error(`argus search: ${err instanceof Error ? err.message : String(err)}`);
    return err instanceof DomainError ? 2 : 1;
  } finally {
    for (const fn of cleanup) await fn().catch(() => undefined);
  }
}
