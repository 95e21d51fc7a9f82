/**
 * Knowledge bases as pipelines read them (retriever `collection_name: kb:<name>`): by name, in the
 * one workspace the run is in — another workspace's base is not found, exactly as a name that
 * exists nowhere — searched as the app's knowledge-base search does (hybrid), returning each
 * chunk's whole text. Chunks of documents deleted since the last build are left out.
 */
import type { Db } from "../db/client.ts";
import { invalid, notFound } from "../errors.ts";
import type { KnowledgeBases } from "../pipelines/servers/contract.ts";
import { search } from "../retrieval/search.ts";
import type { IndexCache } from "../retrieval/store/index.ts";
import { knowledgeIndexName } from "./storage.ts";

/** Deleted documents' chunks may still be in the index: ask for this many more and drop them. */
const SPARE = 20;

export function knowledgeBasesForRun(deps: { db: Db; searchIndexes: IndexCache }, workspaceId: string): KnowledgeBases {
  const { db } = deps;
  return {
    async search(name, queries, k) {
      const base = await db.knowledgeBase.findUnique({ where: { workspaceId_name: { workspaceId, name } } });
      if (!base)
        throw notFound(
          `No knowledge base named “${name}” in this workspace. A pipeline run reads only the knowledge bases of the workspace it runs in; check the name on the Knowledge page.`,
        );
      return deps.searchIndexes.use(knowledgeIndexName(base.id), async (index) => {
        if (!index)
          throw invalid(
            base.status === "indexing"
              ? `The knowledge base “${name}” is being indexed for the first time; run the pipeline once it is ready.`
              : `The knowledge base “${name}” has no searchable documents yet. Upload .txt, .md, .html, .pdf or .docx files to it first.`,
          );
        const live = new Set(
          (
            await db.knowledgeDocument.findMany({
              where: { knowledgeBaseId: base.id, status: "ready" },
              select: { uid: true },
            })
          ).map((d) => d.uid),
        );
        const out: string[][] = [];
        for (const q of queries) {
          if (!/[\p{L}\p{N}]/u.test(q)) {
            out.push([]);
            continue;
          }
          const hits = await search(index, q, { mode: "hybrid", k: Math.min(k + SPARE, 1000), withText: true });
          out.push(
            hits
              .filter((h) => live.has(h.file))
              .slice(0, k)
              .map((h) => h.text ?? h.snippet),
          );
        }
        return out;
      });
    },
  };
}
