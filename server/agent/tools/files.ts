/** list_dir and read_file: exploring the snapshot's tree and reading files by line range. */
import { z } from "zod";
import { detectLanguage } from "../../codebase/languages.ts";
import type { DirListing } from "../sandbox.ts";
import type { ToolEnv } from "./env.ts";
import { clip, cutLine, defineTool, humanBytes, numberLines, ok, plural, splitLines } from "./format.ts";
import {
  MAX_LINE_CHARS,
  MAX_LIST_DIR_CHARS,
  MAX_LIST_DIR_DEPTH,
  MAX_LIST_DIR_ENTRIES,
  MAX_READ_FILE_BYTES,
  MAX_READ_FILE_CHARS,
  MAX_READ_FILE_LINES,
} from "./limits.ts";

const pathField = z
  .string()
  .max(4096)
  .describe('Path relative to the project root, with forward slashes (e.g. "src/app.ts").');
const line = z.coerce.number().int().min(1).max(10_000_000);

export const listDirInput = z.object({
  path: pathField.default(".").describe('Folder relative to the project root; "." (default) is the root.'),
  depth: z.coerce
    .number()
    .int()
    .min(1)
    .max(MAX_LIST_DIR_DEPTH)
    .default(1)
    .describe(`How many levels to descend (1–${MAX_LIST_DIR_DEPTH}, default 1).`),
});

export const readFileInput = z.object({
  path: pathField,
  start_line: line.optional().describe("First line to show (1-based, default 1)."),
  end_line: line.optional().describe(`Last line to show (inclusive). At most ${MAX_READ_FILE_LINES} lines per call.`),
});

function describeEntry(prefix: string, e: DirListing["entries"][number]): string {
  if (e.kind === "dir") return `${prefix}${e.name}/`;
  if (e.kind === "file") return `${prefix}${e.name}  (${humanBytes(e.size ?? 0)})`;
  if (e.kind === "symlink") return `${prefix}${e.name}  (symbolic link, not followed)`;
  return `${prefix}${e.name}  (special file)`;
}

export function listDirTool(env: ToolEnv) {
  return defineTool({
    name: "list_dir",
    description:
      "List a folder of the project: sub-folders (ending in /) and files with their sizes, sorted by name. " +
      "Use depth 2–4 to see a subtree at once. Ignored paths (dependencies, build output, secrets) are not shown.",
    input: listDirInput,
    async run(args) {
      const top = env.sandbox.listDir(args.path);
      const out: string[] = [];
      let shown = 0;
      let hidden = top.ignoredCount;
      let cut = top.truncated;
      const walk = (listing: DirListing, level: number) => {
        for (const e of listing.entries) {
          if (shown >= MAX_LIST_DIR_ENTRIES) {
            cut = true;
            return;
          }
          out.push(describeEntry("  ".repeat(level), e));
          shown++;
          if (e.kind === "dir" && level + 1 < args.depth) {
            const child = env.sandbox.listDir(listing.path ? `${listing.path}/${e.name}` : e.name);
            hidden += child.ignoredCount;
            cut ||= child.truncated;
            if (child.entries.length === 0) out.push(`${"  ".repeat(level + 1)}(empty)`);
            walk(child, level + 1);
          }
        }
      };
      walk(top, 0);
      const name = top.path || ".";
      const head = `${name}/${top.entries.length === 0 ? " (empty)" : ""}`;
      const notes: string[] = [];
      if (top.ignoredCount > 0)
        notes.push(
          `${plural(top.ignoredCount, "entry", "entries")} here excluded by ignore rules (${top.ignoredSample.join(", ")}${top.ignoredCount > top.ignoredSample.length ? ", …" : ""}).`,
        );
      else if (hidden > 0) notes.push(`${plural(hidden, "entry", "entries")} in sub-folders excluded by ignore rules.`);
      if (cut) notes.push(`Listing cut at ${MAX_LIST_DIR_ENTRIES} entries: list a sub-folder or use a smaller depth.`);
      const text = [head, ...out.map((l) => `  ${l}`), ...notes.map((n) => `[${n}]`)].join("\n");
      return ok(
        clip(
          text,
          MAX_LIST_DIR_CHARS,
          () => "[Listing cut to stay within the output limit: list a sub-folder or use a smaller depth.]",
        ),
      );
    },
  });
}

export function readFileTool(env: ToolEnv) {
  return defineTool({
    name: "read_file",
    description:
      `Read a text file of the project with line numbers ("  12 | code"). Give start_line / end_line to read a range ` +
      `(at most ${MAX_READ_FILE_LINES} lines or ${MAX_READ_FILE_CHARS.toLocaleString("en-US")} characters per call; the result says how to continue). ` +
      "Quote evidence from these lines exactly.",
    input: readFileInput,
    async run(args) {
      const file = env.sandbox.readFile(args.path, { maxBytes: MAX_READ_FILE_BYTES });
      const lines = splitLines(file.content);
      // A file cut at the byte cap ends mid-line: drop the partial line, the total is unknown.
      if (file.truncated && !file.content.endsWith("\n")) lines.pop();
      const total = file.truncated
        ? `at least ${lines.length.toLocaleString("en-US")}`
        : lines.length.toLocaleString("en-US");
      const meta = `${detectLanguage(file.path, file.content.slice(0, 256))}, ${humanBytes(file.size)}`;
      if (lines.length === 0) return ok(`${file.path} (${meta}): empty file.`);
      const start = args.start_line ?? 1;
      if (start > lines.length) {
        const why = file.truncated
          ? ` that can be read (only the first ${humanBytes(MAX_READ_FILE_BYTES)} of this file are readable)`
          : "";
        return {
          isError: true,
          text: `${file.path} has ${total} lines${why}; start_line ${start} is past the end. Ask for lines 1–${lines.length}.`,
        };
      }
      if (args.end_line !== undefined && args.end_line < start) {
        return {
          isError: true,
          text: `end_line (${args.end_line}) is before start_line (${start}); give a range like start_line ${start}, end_line ${start + 99}.`,
        };
      }
      const wanted = Math.min(args.end_line ?? lines.length, lines.length);
      const end = Math.min(wanted, start + MAX_READ_FILE_LINES - 1);
      const width = String(end).length;
      const body: string[] = [];
      let chars = 0;
      let last = start - 1;
      for (let n = start; n <= end; n++) {
        const [row] = numberLines([cutLine(lines[n - 1]!, MAX_LINE_CHARS)], n, width);
        if (chars + row!.length + 1 > MAX_READ_FILE_CHARS && body.length > 0) break;
        body.push(row!);
        chars += row!.length + 1;
        last = n;
      }
      const out = [`${file.path} — lines ${start}–${last} of ${total} (${meta})`, ...body];
      if (last < wanted) {
        const why =
          last < end ? `${MAX_READ_FILE_CHARS.toLocaleString("en-US")}-character` : `${MAX_READ_FILE_LINES}-line`;
        out.push(
          `[Stopped at line ${last} (the ${why} limit of one call); call read_file with start_line ${last + 1} to continue.]`,
        );
      }
      if (file.truncated && last === lines.length) {
        out.push(
          `[The file is ${humanBytes(file.size)}; only its first ${humanBytes(MAX_READ_FILE_BYTES)} can be read. Use grep to find lines further down.]`,
        );
      }
      return ok(out.join("\n"));
    },
  });
}
