/**
 * Knowledge bases as pipelines read them (retriever `collection_name: kb:<name>`): by name, in the
 * one workspace the run is in — another workspace's base is not found, exactly as a name that
 * exists nowhere — searched by the app's knowledge-base search (./search.ts, hybrid), returning each
 * chunk's whole text and its calibrated relevance (the retriever's `ret_scores`).
 */
import type { Db } from "../db/client.ts";
import { notFound } from "../errors.ts";
import type { KnowledgeBases } from "../pipelines/servers/contract.ts";
import type { IndexCache } from "../retrieval/store/index.ts";
import { searchKnowledgeBase } from "./search.ts";

export function knowledgeBasesForRun(deps: { db: Db; searchIndexes: IndexCache }, workspaceId: string): KnowledgeBases {
  const { db } = deps;
  return {
    async search(name, queries, k) {
      const base = await db.knowledgeBase.findUnique({ where: { workspaceId_name: { workspaceId, name } } });
      if (!base)
        throw notFound(
          `No knowledge base named “${name}” in this workspace. A pipeline run reads only the knowledge bases of the workspace it runs in; check the name on the Knowledge page.`,
        );
      // Queries without a letter or digit find nothing (the app's search box refuses them).
      const searchable = queries.map((q) => /[\p{L}\p{N}]/u.test(q));
      const hits = await searchKnowledgeBase(
        deps,
        base,
        queries.filter((_, i) => searchable[i]),
        { mode: "hybrid", k, withText: true, subject: `The knowledge base “${name}”` },
      );
      let next = 0;
      return searchable.map((ok) =>
        ok ? hits[next++]!.map((h) => ({ text: h.text ?? h.snippet, score: h.relevance })) : [],
      );
    },
  };
}
