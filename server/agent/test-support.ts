/**
 * Test-only review tools over an in-memory tree, so the agent's tests do not depend on the real
 * Sandbox and tools (./tools). They follow the ReviewTool contract: zod-validated input,
 * plain-text bounded results, errors as `isError` text.
 */
import { z } from "zod";
import type { ReviewTool } from "./tools/types.ts";

export type Tree = Record<string, string>;

export function memoryTools(tree: Tree): ReviewTool[] {
  const readFile: ReviewTool<
    z.ZodObject<{ path: z.ZodString; start_line: z.ZodOptional<z.ZodNumber>; end_line: z.ZodOptional<z.ZodNumber> }>
  > = {
    name: "read_file",
    description: "Read a file with line numbers, optionally a line range.",
    input: z.object({
      path: z.string().min(1),
      start_line: z.number().int().positive().optional(),
      end_line: z.number().int().positive().optional(),
    }),
    async run({ path, start_line = 1, end_line }) {
      const text = tree[path];
      if (text === undefined) return { isError: true, text: `No such file: ${path}. Use list_dir to see the files.` };
      const lines = text.split("\n");
      const last = Math.min(end_line ?? lines.length, lines.length);
      return {
        text: lines
          .slice(start_line - 1, last)
          .map((l, i) => `${String(start_line + i).padStart(4)} | ${l}`)
          .join("\n"),
      };
    },
  };
  const listDir: ReviewTool<z.ZodObject<{ path: z.ZodDefault<z.ZodString> }>> = {
    name: "list_dir",
    description: "List the files under a directory.",
    input: z.object({ path: z.string().default(".") }),
    async run({ path }) {
      const prefix = path === "." ? "" : `${path.replace(/\/$/, "")}/`;
      const names = Object.keys(tree)
        .filter((p) => p.startsWith(prefix))
        .sort();
      return { text: names.length ? names.join("\n") : `(no files under ${path})` };
    },
  };
  return [readFile, listDir] as ReviewTool[];
}

export const readFrom = (tree: Tree) => async (path: string) => tree[path] ?? null;
