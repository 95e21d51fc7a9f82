/**
 * bench/pipelines-rag.ts's comparison: the same retrieval by direct LanceDB calls, one query at a time
 * and four at once (as the retriever runs them), each on a freshly opened index (as each pipeline run
 * opens one).
 */
import path from "node:path";
import { embedderForIndex } from "../server/retrieval/embed/from-record.ts";
import { bm25Tokenizer } from "../server/pipelines/servers/bm25-text.ts";
import { connect, openChunkIndex } from "../server/retrieval/store/index.ts";

const round = (n: number) => Math.round(n * 1000) / 1000;

/** Ms per question of each index (built under `dir`), by concurrency. */
export async function directSearch(dir: string, questions: string[]) {
  const words = bm25Tokenizer("en", "auto");
  const direct: Record<string, Record<string, number>> = {};
  for (const [kind, uri, name] of [
    ["bm25", "index/bm25", "bm25"],
    ["hash-dense", "index/dense", "corpus"],
  ] as const) {
    direct[kind] = {};
    for (const concurrency of [1, 4]) {
      const store = await connect(path.join(dir, uri));
      const index = (await openChunkIndex(store, name))!;
      const embedder = kind === "hash-dense" ? embedderForIndex(index.embedder, index.embedderState) : null;
      const t = performance.now();
      const one = async (q: string) => {
        if (embedder) await index.vectorTexts((await embedder.embed([q]))[0]!, 5);
        else await index.fullTextTexts(words.tokens(q).join(" "), 5);
      };
      let next = 0;
      await Promise.all(
        Array.from({ length: concurrency }, async () => {
          while (next < questions.length) await one(questions[next++]!);
        }),
      );
      direct[kind][concurrency === 1 ? "one at a time" : "4 at once"] = round(
        (performance.now() - t) / questions.length,
      );
      index.close();
      store.close();
    }
  }
  return direct;
}
