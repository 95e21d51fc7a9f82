/**
 * The outline of files without a grammar: universal-ctags runs beside the pass when it is on PATH,
 * its definitions written into the index afterwards (regex outlines when it failed after the pass
 * skipped them); without ctags the pass makes regex outlines itself.
 */
import { grammarFor } from "../treesitter.ts";
import type { BuildOptions } from "./build-options.ts";
import type { BuildPlan } from "./build-plan.ts";
import type { IndexWriter } from "./index-writer.ts";
import { ctagsOutline, findCtags, regexOutlineFile } from "./outline.ts";
import type { Definition } from "./types.ts";

export interface OutlineRun {
  /** The files the outline covers. */
  files: string[];
  /** The ctags binary, when it is used. */
  ctags: string | null;
  /** ctags' definitions (null without ctags or when it failed), and why ctags was not used / failed. */
  result: Promise<{ defs: Map<string, Definition[]> | null; note: string | null }>;
}

/** Starts ctags on the files without a grammar (it runs while the pass does). */
export async function startOutline(
  options: BuildOptions,
  root: string,
  plan: BuildPlan,
  maxParseBytes: number,
): Promise<OutlineRun> {
  const files = options.files
    .filter(
      (f) => !grammarFor(f.language) && plan.insideRoot.has(f.path) && (plan.sizes.get(f.path) ?? 0) <= maxParseBytes,
    )
    .map((f) => f.path);
  const ctags = options.ctags === false || files.length === 0 ? null : await findCtags();
  const result = ctags
    ? ctagsOutline(ctags, root, files).then(
        (defs) => ({ defs, note: null }),
        (err: unknown) => ({
          defs: null,
          note: `ctags failed (${err instanceof Error ? err.message : String(err)}): regex outline used`,
        }),
      )
    : Promise.resolve({
        defs: null,
        note:
          options.ctags !== false && files.length > 0
            ? "universal-ctags (with JSON output) is not on PATH: regex outline used"
            : null,
      });
  return { files, ctags, result };
}

/** Writes the outline into the index once the pass is done; `definitions`: how many it added. */
export async function writeOutline(
  writer: IndexWriter,
  root: string,
  run: OutlineRun,
): Promise<{ definitions: number; outline: "ctags" | "regex"; note: string | null }> {
  const { defs, note } = await run.result;
  let definitions = 0;
  if (defs) {
    for (const [file, fileDefs] of defs) {
      writer.addOutline(file, fileDefs);
      definitions += fileDefs.length;
    }
  } else if (run.ctags) {
    // ctags failed after the pass skipped its regex outlines: make them now.
    for (const file of run.files) {
      const fileDefs = await regexOutlineFile(root, file);
      writer.addOutline(file, fileDefs);
      definitions += fileDefs.length;
    }
  }
  return { definitions, outline: run.ctags && defs ? "ctags" : "regex", note };
}
