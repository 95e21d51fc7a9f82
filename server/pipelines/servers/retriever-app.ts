/**
 * What the retriever reads from the Argus app rather than from files: knowledge bases
 * (`collection_name: kb:<name>`, searched as the app's knowledge-base search does, in the run's
 * workspace only) and, for runs in the web app, the project memory kept in the database (the user's
 * saved turns, ranked by BM25 — upstream searches a vector collection of them).
 */
import { isUserFacing } from "../../errors.ts";
import type { CallContext, MemoryStore } from "./contract.ts";
import { ToolError } from "./define.ts";
import { memoryProfile, turnText } from "./memory.ts";
import { lexicalScores } from "./reranker.ts";

export const KB_PREFIX = "kb:";
/** Turns a project-memory search ranks (the most recent ones). */
const MEMORY_TURNS = 500;

/** The knowledge base a `collection_name` names (`kb:<name>`), or null for an index collection. */
export function knowledgeBaseName(collection: unknown): string | null {
  if (typeof collection !== "string" || !collection.startsWith(KB_PREFIX)) return null;
  return collection.slice(KB_PREFIX.length).trim();
}

export async function searchKnowledgeBase(
  ctx: CallContext,
  name: string,
  queries: readonly string[],
  k: number,
  tool: string,
): Promise<{ text: string; score: number }[][]> {
  if (!name)
    throw new ToolError(`retriever.${tool}: collection_name "kb:" names no knowledge base; write kb:<its name>`);
  if (!ctx.knowledge)
    throw new ToolError(
      `retriever.${tool}: collection_name "kb:${name}" names an Argus knowledge base, but this run is not in a workspace — knowledge bases are read only by runs started in their workspace (the web app)`,
    );
  try {
    return await ctx.knowledge.search(name, queries, k);
  } catch (err) {
    if (err instanceof Error && isUserFacing(err)) throw new ToolError(`retriever.${tool}: ${err.message}`);
    throw err;
  }
}

/** The user's saved turns most like each query (BM25), at most `k`, for runs with a memory store. */
export async function searchProjectMemory(
  store: MemoryStore,
  user: unknown,
  queries: readonly string[],
  k: number,
  tool: string,
): Promise<string[][]> {
  const profile = memoryProfile(user, `retriever.${tool}`);
  const docs = (await store.turns(profile, MEMORY_TURNS)).map(turnText);
  return queries.map((q) => {
    if (!docs.length) return [];
    const scores = lexicalScores(q, docs);
    return docs
      .map((d, i) => ({ d, s: scores[i]!, i }))
      .filter((x) => x.s > 0)
      .sort((a, b) => b.s - a.s || a.i - b.i)
      .slice(0, k)
      .map((x) => x.d);
  });
}
