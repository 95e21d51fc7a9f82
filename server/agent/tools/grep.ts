/** grep: ripgrep over the snapshot (regex or literal, globs, case, context), results capped with a note. */
import { z } from "zod";
import type { ToolEnv } from "./env.ts";
import { clip, defineTool, fail, ok, plural } from "./format.ts";
import {
  DEFAULT_GREP_RESULTS,
  GREP_TIMEOUT_MS,
  MAX_GREP_CHARS,
  MAX_GREP_CONTEXT,
  MAX_GREP_LINE_CHARS,
  MAX_GREP_RESULTS,
  MAX_GREP_SCAN_BYTES,
} from "./limits.ts";
import { runRipgrep, type RgResult } from "./ripgrep.ts";

const glob = z
  .string()
  .min(1)
  .max(500)
  .refine((g) => !/[\0\n\r]/.test(g), "a glob cannot contain NUL or line breaks");

export const grepInput = z.object({
  pattern: z
    .string()
    .min(1, "give a non-empty pattern")
    .max(2000)
    .describe(
      "A Rust-syntax regular expression (like PCRE without look-around or backreferences), or plain text with literal: true.",
    ),
  literal: z
    .boolean()
    .default(false)
    .describe("Search for the pattern as plain text (no regex special characters). Default false."),
  path: z
    .string()
    .max(4096)
    .default(".")
    .describe('File or folder to search, relative to the project root (default "." = everything).'),
  glob: z
    .union([glob, z.array(glob).max(20)])
    .optional()
    .describe(
      'Only files matching this glob (or any of these globs), relative to the project root: "*.py", "src/**/*.ts"; "!**/*.test.ts" excludes.',
    ),
  case: z
    .enum(["sensitive", "insensitive", "smart"])
    .default("sensitive")
    .describe(
      '"sensitive" (default), "insensitive", or "smart" (insensitive unless the pattern has an upper-case letter).',
    ),
  context: z.coerce
    .number()
    .int()
    .min(0)
    .max(MAX_GREP_CONTEXT)
    .default(0)
    .describe(`Lines of context before and after each match (0–${MAX_GREP_CONTEXT}).`),
  max_results: z.coerce
    .number()
    .int()
    .min(1)
    .max(MAX_GREP_RESULTS)
    .default(DEFAULT_GREP_RESULTS)
    .describe(`Matching lines to show (default ${DEFAULT_GREP_RESULTS}, at most ${MAX_GREP_RESULTS}).`),
});
export type GrepArgs = z.infer<typeof grepInput>;

/** Formats rg's rows: a header line per file, "12: text" for matches and "12- text" for context. */
export function formatGrep(r: RgResult, maxResults: number, describeQuery: string, context = 0): string {
  if (r.matchingLines === 0) {
    const note =
      r.stopped === "timeout"
        ? ` The search was stopped after ${GREP_TIMEOUT_MS / 1000} s; search a smaller folder.`
        : "";
    return `No matches for ${describeQuery}.${note}`;
  }
  const out: string[] = [];
  let shown = 0;
  let filesShown = 0;
  for (const file of r.files) {
    if (shown >= maxResults) break;
    if (!file.rows.some((row) => !row.context)) continue;
    out.push(file.path);
    filesShown++;
    let prev = -1;
    for (let i = 0; i < file.rows.length; i++) {
      const row = file.rows[i]!;
      if (shown >= maxResults) {
        // Keep only the context that directly trails the last shown match.
        if (!row.context || row.line !== prev + 1) break;
      }
      // With context, "--" marks a gap between groups (as grep does); without, every row is a match.
      if (context > 0 && prev !== -1 && row.line > prev + 1) out.push("  --");
      const text = row.text.length > MAX_GREP_LINE_CHARS ? `${row.text.slice(0, MAX_GREP_LINE_CHARS)}…` : row.text;
      out.push(`  ${row.line}${row.context ? "-" : ":"} ${text}`);
      prev = row.line;
      if (!row.context) shown++;
    }
  }
  const total = r.matchingLines;
  const atLeast = r.stopped ? "at least " : "";
  const head = `${atLeast}${plural(total, "matching line")} in ${atLeast}${plural(r.files.filter((f) => f.rows.some((row) => !row.context)).length, "file")} for ${describeQuery}`;
  const notes: string[] = [];
  if (total > shown)
    notes.push(
      `${atLeast}${plural(total - shown, "more match", "more matches")} not shown (showing the first ${shown}, files in path order). Narrow the search with path or glob, a more specific pattern, or raise max_results (at most ${MAX_GREP_RESULTS}).`,
    );
  if (r.stopped === "output_cap") notes.push("The search produced too much output and was stopped; narrow it.");
  if (r.stopped === "timeout") notes.push(`The search was stopped after ${GREP_TIMEOUT_MS / 1000} s; narrow it.`);
  const text = [head + ":", ...out, ...notes.map((n) => `[${n}]`)].join("\n");
  return clip(
    text,
    MAX_GREP_CHARS,
    () =>
      `[Output cut to stay within ${MAX_GREP_CHARS.toLocaleString("en-US")} characters (${filesShown} files had matches shown); narrow the search with path or glob, or lower context.]`,
  );
}

export function grepTool(env: ToolEnv) {
  return defineTool({
    name: "grep",
    description:
      'Search file contents with ripgrep. Returns matching lines grouped by file as "12: text" (context lines as "12- text"), ' +
      "files in path order, capped at max_results with a count of the rest. Ignored files (dependencies, build output, secrets) are never searched. " +
      "Use literal: true to search for text containing regex characters such as ( [ . *.",
    input: grepInput,
    async run(args, signal) {
      // The path goes through the Sandbox like every other; rg only ever sees the clean relative form.
      const target = env.sandbox.resolve(args.path, "any");
      if (target.kind === "file") env.sandbox.readBytes(target.rel, 0); // refuses binary files
      const globs = args.glob === undefined ? [] : Array.isArray(args.glob) ? args.glob : [args.glob];
      const r = await runRipgrep(
        env.sandbox.root,
        {
          pattern: args.pattern,
          literal: args.literal,
          caseMode: args.case,
          globs,
          context: args.context,
          target: target.rel,
          targetIsFile: target.kind === "file",
          maxColumns: MAX_GREP_LINE_CHARS,
        },
        { matcher: env.sandbox.matcher, signal, timeoutMs: GREP_TIMEOUT_MS, maxScanBytes: MAX_GREP_SCAN_BYTES },
      );
      if (r.error && r.matchingLines === 0) {
        const hint = args.literal ? "" : " If you meant the text literally, call grep again with literal: true.";
        return fail(`grep could not run this search:\n${r.error}\n${hint.trim()}`.trim());
      }
      const where = target.rel ? ` in ${target.rel}` : "";
      const globNote = globs.length ? ` (glob ${globs.join(", ")})` : "";
      return ok(
        formatGrep(
          r,
          args.max_results,
          `${args.literal ? "text" : "pattern"} ${JSON.stringify(args.pattern)}${where}${globNote}`,
          args.context,
        ),
      );
    },
  });
}
