/**
 * The answer when no model is configured — the embedded default, so it has to be useful on its own:
 * the best code-search hits for the question (file, lines, snippet), labelled "search results, no
 * model", with a pointer to Settings → Model providers.
 */
import type { SearchHit } from "../shared/ask.ts";
import { NoSearchIndexError } from "../errors.ts";
import type { ToolContext } from "../agent/index.ts";

export const SEARCH_LABEL = "Search results, no model";
export const SEARCH_HITS = 5;
const SNIPPET_LINES = 8;

/** Words that carry no meaning for code search ("where are passwords hashed?" → "passwords hashed"). */
const STOP = new Set(
  "a an and are as at be by can do does for from how i in is it of on or our the this to was we what when where which who why with you your".split(
    " ",
  ),
);

const isProse = (file: string) => /\.(md|mdx|markdown|rst|txt|adoc)$/i.test(file);

/** The question's content words ("Where are passwords hashed?" → "passwords hashed"). No stemming
 * here: search stems the query as it stemmed the index (full text and the local embedder alike), so
 * "passwords" already finds `hashPassword`; adding "password" too would count the word twice. */
export function searchQuery(question: string): string {
  const words = question
    .toLowerCase()
    .split(/[^\p{L}\p{N}_]+/u)
    .filter((w) => w && !STOP.has(w));
  return words.length ? [...new Set(words)].join(" ") : question.trim();
}

/**
 * Said when the code has no search index to answer from (its import built none, or it was removed):
 * what is missing and the two ways out, instead of the search tool's refusal meant for a model.
 */
export const NO_INDEX_TEXT = `**${SEARCH_LABEL}.** No model provider is configured for this workspace, and this code has no search index to look the question up in (the index is built when the code is imported). An owner can add a provider in Settings → Model providers to get answers from a model, which reads the code itself; or import the code again to build its search index.`;

export async function searchAnswer(
  question: string,
  searchCode: ToolContext["searchCode"] | undefined,
): Promise<{ text: string; hits: SearchHit[] }> {
  if (!searchCode) return { text: NO_INDEX_TEXT, hits: [] };
  let found: Awaited<ReturnType<typeof searchCode>>;
  try {
    found = await searchCode(searchQuery(question), { mode: "hybrid", k: SEARCH_HITS * 2 });
  } catch (err) {
    if (err instanceof NoSearchIndexError) return { text: NO_INDEX_TEXT, hits: [] };
    throw err;
  }
  // The question is about the code: code hits first, documentation after (each group in search order).
  const ranked = [...found.filter((h) => !isProse(h.file)), ...found.filter((h) => isProse(h.file))];
  const hits: SearchHit[] = ranked.slice(0, SEARCH_HITS).map((h) => ({
    file: h.file,
    startLine: h.startLine,
    endLine: h.endLine,
    snippet: h.snippet.split("\n").slice(0, SNIPPET_LINES).join("\n"),
    snippetStartLine: h.snippetStartLine,
    score: h.score,
    ...(h.symbolPath ? { symbolPath: h.symbolPath } : {}),
  }));
  const intro = `**${SEARCH_LABEL}.** No model provider is configured for this workspace, so these are the code-search hits that best match the question. An owner can add one in Settings → Model providers to get answers.`;
  if (hits.length === 0) return { text: `${intro}\n\nNothing in the code matched.`, hits };
  const list = hits.map(
    (h) => `- ${h.file}:${h.startLine}-${h.endLine}${h.symbolPath ? ` — \`${h.symbolPath.replaceAll("`", "")}\`` : ""}`,
  );
  return { text: `${intro}\n\n${list.join("\n")}`, hits };
}
