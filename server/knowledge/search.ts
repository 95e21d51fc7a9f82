/**
 * Searching one knowledge base — the one implementation behind the app's search box
 * (service.ts `search`) and pipelines' `collection_name: kb:<name>` (pipeline-access.ts). A hit
 * counts when its document still exists in the base and is indexed or waiting to be re-indexed
 * (`ready`, `pending`: their chunks are in the index); chunks of documents deleted, skipped or failed
 * since the last build are left out. Asks the index for a few more than `k` to make up for them.
 *
 * `cut` (the app's search box) ranks and cuts by the hits' relevance labels (retrieval/relevance.ts):
 * strong matches first, in search order, and only they when there are any; when none is strong
 * the query has no good match and only the nearest NEAREST_WHEN_NO_MATCH hits are shown, marked
 * weak — not every document of the base. Pipelines get their `k` chunks as ranked.
 */
import type { Db } from "../db/client.ts";
import { invalid } from "../errors.ts";
import { search as searchIndex, type SearchResult } from "../retrieval/search.ts";
import type { IndexCache } from "../retrieval/store/index.ts";
import { knowledgeIndexName } from "./storage.ts";

const SPARE = 20;
export const NEAREST_WHEN_NO_MATCH = 3;
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
  options: { mode: "hybrid" | "fulltext" | "vector"; k: number; withText?: boolean; subject: string; cut?: boolean },
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
      const live = results.filter((r) => names.has(r.file));
      out.push(
        (options.cut ? cutByRelevance(live) : live)
          .slice(0, options.k)
          .map((r) => ({ ...r, documentName: names.get(r.file)! })),
      );
    }
    return out;
  });
}

/** Strong matches (in search order) when there are any, else the nearest few weak ones. */
export function cutByRelevance<T extends Pick<SearchResult, "match">>(hits: readonly T[]): T[] {
  const strong = hits.filter((h) => h.match === "strong");
  return strong.length ? strong : hits.slice(0, NEAREST_WHEN_NO_MATCH);
}
