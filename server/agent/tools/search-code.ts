/** search_code: semantic + keyword search over the snapshot's code-search index (ToolContext.searchCode). */
import { z } from "zod";
import type { ToolEnv } from "./env.ts";
import { clip, cutLine, defineTool, fail, numberLines, ok, plural, splitLines } from "./format.ts";
import { DEFAULT_SEARCH_RESULTS, MAX_SEARCH_CHARS, MAX_SEARCH_RESULTS, MAX_SNIPPET_LINES } from "./limits.ts";

export const searchCodeInput = z.object({
  query: z
    .string()
    .trim()
    .min(1, "give a query")
    .max(2000)
    .describe('What to look for, in words or identifiers: "where are passwords hashed", "parseConfig retry".'),
  mode: z
    .enum(["hybrid", "fulltext", "vector"])
    .default("hybrid")
    .describe('"hybrid" (default: keywords + meaning), "fulltext" (identifiers and words), "vector" (meaning).'),
  k: z.coerce
    .number()
    .int()
    .min(1)
    .max(MAX_SEARCH_RESULTS)
    .default(DEFAULT_SEARCH_RESULTS)
    .describe(`Results to return (default ${DEFAULT_SEARCH_RESULTS}, at most ${MAX_SEARCH_RESULTS}).`),
  path_glob: z.string().max(500).optional().describe('Only files matching this glob: "src/**/*.ts".'),
  language: z.string().max(50).optional().describe('Only files of this language id: "typescript", "python", "go" ….'),
});

export function searchCodeTool(env: ToolEnv) {
  return defineTool({
    name: "search_code",
    description:
      "Search the project's code by meaning and keywords when you don't know the exact text: returns the best-matching code chunks (file, line range, symbol, snippet with line numbers). " +
      "Use grep for exact text.",
    input: searchCodeInput,
    async run(args) {
      const search = env.ctx.searchCode;
      if (!search)
        return fail(
          "This snapshot has no code-search index, so search_code can't answer. Use grep for text, find_definition for symbols, list_dir to explore.",
        );
      const hits = (
        await search(args.query, { mode: args.mode, k: args.k, pathGlob: args.path_glob, language: args.language })
      ).filter((h) => !env.sandbox.matcher.ignores(h.file));
      if (hits.length === 0)
        return ok(
          `No code matches ${JSON.stringify(args.query)}${args.path_glob ? ` in ${args.path_glob}` : ""}. Try other words, mode "fulltext" with an identifier, or grep.`,
        );
      const out = [`${plural(hits.length, "result")} for ${JSON.stringify(args.query)} (${args.mode}), best first:`];
      hits.forEach((h, i) => {
        out.push(
          `${i + 1}. ${h.file}:${h.startLine}-${h.endLine}${h.symbolPath ? ` ${h.symbolPath}` : ""} (score ${h.score.toFixed(3)})`,
        );
        const lines = splitLines(h.snippet)
          .slice(0, MAX_SNIPPET_LINES)
          .map((l) => cutLine(l, 300));
        out.push(...numberLines(lines, h.snippetStartLine).map((l) => `   ${l}`));
      });
      return ok(
        clip(
          out.join("\n"),
          MAX_SEARCH_CHARS,
          () => "[Results cut at the size limit: lower k or narrow with path_glob.]",
        ),
      );
    },
  });
}
