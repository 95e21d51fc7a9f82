/**
 * Searching one knowledge base — the one implementation behind the app's search box
 * (service.ts `search`) and pipelines' `collection_name: kb:<name>` (pipeline-access.ts). A hit
 * counts when its document still exists in the base and is indexed or waiting to be re-indexed
 * (`ready`, `pending`: their chunks are in the index); chunks of documents deleted, skipped or failed
 * since the last build are left out. Asks the index for a few more than `k` to make up for them.
 */
import type { Db } from "../db/client.ts";
import { invalid } from "../errors.ts";
import { search as searchIndex, type SearchResult } from "../retrieval/search.ts";
import type { IndexCache } from "../retrieval/store/index.ts";
import { knowledgeIndexName } from "./storage.ts";

const SPARE = 20;
/** Document states whose chunks belong in search results. */
export const SEARCHABLE_STATUSES = ["ready", "pending"] as const;

export interface KnowledgeSearchHit extends SearchResult {
  documentName: string;
}

export interface SearchableBase {
  id: string;
  status: string;
}

/**
 * The best `k` hits for each query (in order), or a 400 naming what is missing. `noBase` words the
 * sentence for the caller ("This knowledge base…" / "The knowledge base “x”…").
 */
export async function searchKnowledgeBase(
  deps: { db: Db; searchIndexes: IndexCache },
  base: SearchableBase,
  queries: readonly string[],
  options: { mode: "hybrid" | "fulltext" | "vector"; k: number; withText?: boolean; subject: string },
): Promise<KnowledgeSearchHit[][]> {
  return deps.searchIndexes.use(knowledgeIndexName(base.id), async (index) => {
    if (!index)
      throw invalid(
        base.status === "indexing"
          ? `${options.subject} is being indexed for the first time; search once it is ready.`
          : `${options.subject} has no searchable documents yet. Upload .txt, .md, .html, .pdf or .docx files to it first.`,
      );
    const out: KnowledgeSearchHit[][] = [];
    for (const q of queries) {
      const results = await searchIndex(index, q, {
        mode: options.mode,
        k: Math.min(options.k + SPARE, 1000),
        ...(options.withText ? { withText: true } : {}),
      });
      const docs = await deps.db.knowledgeDocument.findMany({
        where: {
          knowledgeBaseId: base.id,
          uid: { in: [...new Set(results.map((r) => r.file))] },
          status: { in: [...SEARCHABLE_STATUSES] },
        },
        select: { uid: true, name: true },
      });
      const names = new Map(docs.map((d) => [d.uid, d.name]));
      out.push(
        results
          .filter((r) => names.has(r.file))
          .slice(0, options.k)
          .map((r) => ({ ...r, documentName: names.get(r.file)! })),
      );
    }
    return out;
  });
}
