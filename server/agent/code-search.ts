import type { Config } from "../config.ts";
import { NoSearchIndexError } from "../errors.ts";
import { queryEmbedderFor } from "../retrieval/query-embedder.ts";
import { search } from "../retrieval/search.ts";
import type { IndexCache } from "../retrieval/store/index.ts";
import type { ToolContext } from "./tools/types.ts";

/**
 * The search_code tool's search over one code index (a snapshot's: `searchIndexName(snapshotId)`),
 * through the shared open indexes. Without a query embedder the index's own mode falls back to full text.
 */
export function codeSearchFor(config: Config, searchIndexes: IndexCache, indexName: string): ToolContext["searchCode"] {
  return (query, opts) =>
    searchIndexes.use(indexName, async (index) => {
      if (!index) throw new NoSearchIndexError();
      const embedder = await queryEmbedderFor(index, config.embeddings).catch(() => undefined);
      const builtIn = index.embedder.name === "hash" || index.embedder.name === "local";
      const mode = embedder || builtIn ? opts.mode : "fulltext";
      const hits = await search(index, query, {
        mode,
        k: opts.k,
        embedder,
        filters: { pathGlob: opts.pathGlob, language: opts.language },
      });
      return hits.map((h) => ({
        file: h.file,
        startLine: h.startLine,
        endLine: h.endLine,
        snippet: h.snippet,
        snippetStartLine: h.snippetStartLine,
        score: h.score,
        symbolPath: h.symbolPath ?? undefined,
      }));
    });
}
