/** list_symbols, find_definition, find_references, find_module: answers from the snapshot's symbol index. */
import { z } from "zod";
import type { ReferenceHit, SymbolHit, SymbolKind } from "../../codebase/symbols/index.ts";
import type { ToolEnv } from "./env.ts";
import { clip, cutLine, defineTool, ok, plural, splitLines } from "./format.ts";
import { DEFAULT_SYMBOL_RESULTS, MAX_SYMBOL_CHARS, MAX_SYMBOL_RESULTS } from "./limits.ts";

const SYMBOL_KINDS = [
  "function",
  "method",
  "constructor",
  "class",
  "struct",
  "interface",
  "trait",
  "enum",
  "type",
  "module",
  "constant",
  "variable",
  "field",
  "macro",
  "impl",
  "other",
] as const satisfies readonly SymbolKind[];
const REFERENCE_KINDS = ["call", "new", "type", "implementation", "import"] as const;

const limitField = (def: number) =>
  z.coerce
    .number()
    .int()
    .min(1)
    .max(MAX_SYMBOL_RESULTS)
    .default(def)
    .describe(`Rows to return (default ${def}, at most ${MAX_SYMBOL_RESULTS}).`);
const name = z.string().trim().min(1, "give a symbol name").max(500);

export const listSymbolsInput = z.object({
  file: z
    .string()
    .max(4096)
    .optional()
    .describe("Only symbols of this file (path relative to the project root): its outline."),
  kind: z.enum(SYMBOL_KINDS).optional().describe("Only symbols of this kind."),
  query: z
    .string()
    .max(500)
    .optional()
    .describe("Case-insensitive part of the name; exact and prefix matches come first."),
  limit: limitField(DEFAULT_SYMBOL_RESULTS),
});
export const findDefinitionInput = z.object({
  name: name.describe(
    'Symbol name, optionally qualified by its container: "parseConfig", "UserService.login", "Client::new".',
  ),
  limit: limitField(20),
});
export const findReferencesInput = z.object({
  name: name.describe(
    "Exact name of the symbol whose uses to list (calls, instantiations, type uses, implementations, imports).",
  ),
  kind: z.enum(REFERENCE_KINDS).optional().describe("Only references of this kind."),
  limit: limitField(DEFAULT_SYMBOL_RESULTS),
});
export const findModuleInput = z.object({
  specifier: z
    .string()
    .trim()
    .min(1, "give the import specifier")
    .max(1000)
    .describe('The import as written: "./util", "@/lib/db", "os.path", "github.com/x/y/pkg".'),
  from_file: z.string().max(4096).describe("The file the import is written in (path relative to the project root)."),
});

function symbolLine(s: SymbolHit, withPath: boolean): string {
  const where = withPath ? `${s.path}:${s.startLine}-${s.endLine}` : `${s.startLine}-${s.endLine}`;
  const qualified = s.container ? `${s.container}.${s.name}` : s.name;
  return `${where}  ${s.kind} ${qualified}${s.exported ? " (exported)" : ""}\n    ${cutLine(s.signature, 200)}`;
}

/** Keeps results the snapshot's ignore rules allow (the index follows them; this keeps it certain). */
function visible<T extends { path: string }>(env: ToolEnv, rows: T[]): T[] {
  return rows.filter((r) => !env.sandbox.matcher.ignores(r.path));
}

function moreNote(shown: number, limitValue: number, what: string): string {
  return shown >= limitValue
    ? `\n[Showing the first ${shown} ${what}; there may be more: raise limit (at most ${MAX_SYMBOL_RESULTS}) or narrow the query.]`
    : "";
}

export function listSymbolsTool(env: ToolEnv) {
  return defineTool({
    name: "list_symbols",
    description:
      "List symbols (functions, classes, methods, types, constants …) from the symbol index with their line ranges and signatures. " +
      "With file: that file's outline. With query: symbols whose name contains it, across the project.",
    input: listSymbolsInput,
    async run(args) {
      const file = args.file !== undefined ? env.sandbox.resolve(args.file, "file").rel : undefined;
      const rows = visible(
        env,
        env.withSymbols((ix) => ix.listSymbols({ file, kind: args.kind, query: args.query, limit: args.limit })),
      );
      const filter = [
        file && `in ${file}`,
        args.kind && `of kind ${args.kind}`,
        args.query && `matching ${JSON.stringify(args.query)}`,
      ]
        .filter(Boolean)
        .join(" ");
      if (rows.length === 0) {
        return ok(
          `No symbols ${filter || "in the index"}.${file ? " The file may have no definitions, or its language has no outline support: read it with read_file." : ""}`,
        );
      }
      const text = `${plural(rows.length, "symbol")}${filter ? ` ${filter}` : ""}:\n${rows.map((s) => symbolLine(s, !file)).join("\n")}${moreNote(rows.length, args.limit, "symbols")}`;
      return ok(clip(text, MAX_SYMBOL_CHARS, () => "[Output cut at the size limit: narrow with file, kind or query.]"));
    },
  });
}

export function findDefinitionTool(env: ToolEnv) {
  return defineTool({
    name: "find_definition",
    description:
      'Find where a symbol is defined: file, line range, kind and signature. Qualify methods as "Class.method" to narrow. Then read_file the range.',
    input: findDefinitionInput,
    async run(args) {
      const rows = visible(
        env,
        env.withSymbols((ix) => ix.findDefinition(args.name, { limit: args.limit })),
      );
      if (rows.length === 0)
        return ok(
          `No definition of ${JSON.stringify(args.name)} in the symbol index. It may come from a dependency, be generated, or be defined dynamically; try grep.`,
        );
      const text = `${plural(rows.length, "definition")} of ${JSON.stringify(args.name)}:\n${rows.map((s) => symbolLine(s, true)).join("\n")}${moreNote(rows.length, args.limit, "definitions")}`;
      return ok(
        clip(
          text,
          MAX_SYMBOL_CHARS,
          () => "[Output cut at the size limit: qualify the name (Container.name) to narrow.]",
        ),
      );
    },
  });
}

export function findReferencesTool(env: ToolEnv) {
  return defineTool({
    name: "find_references",
    description:
      "List where a symbol is used (calls, instantiations, type uses, implementations, imports), grouped by file, each with its line of code.",
    input: findReferencesInput,
    async run(args) {
      const rows = visible(
        env,
        env.withSymbols((ix) => ix.findReferences(args.name, { limit: args.limit, kind: args.kind })),
      );
      if (rows.length === 0)
        return ok(
          `No references to ${JSON.stringify(args.name)}${args.kind ? ` of kind ${args.kind}` : ""} in the symbol index. Try grep for textual uses.`,
        );
      const byFile = new Map<string, ReferenceHit[]>();
      for (const r of rows) byFile.set(r.path, [...(byFile.get(r.path) ?? []), r]);
      const out: string[] = [
        `${plural(rows.length, "reference")} to ${JSON.stringify(args.name)} in ${plural(byFile.size, "file")}:`,
      ];
      for (const [file, refs] of byFile) {
        let lines: string[] = [];
        try {
          lines = splitLines(env.sandbox.readFile(file).content);
        } catch {
          // unreadable now: list the positions without code
        }
        out.push(file);
        for (const r of refs) {
          const code = lines[r.line - 1];
          out.push(`  ${r.line}:${r.column} ${r.kind}${code !== undefined ? `  ${cutLine(code.trim(), 200)}` : ""}`);
        }
      }
      const text = out.join("\n") + moreNote(rows.length, args.limit, "references");
      return ok(clip(text, MAX_SYMBOL_CHARS, () => "[Output cut at the size limit: lower limit or filter by kind.]"));
    },
  });
}

export function findModuleTool(env: ToolEnv) {
  return defineTool({
    name: "find_module",
    description:
      "Resolve an import specifier as seen from a file: the project file (or Go package folder) it refers to, or whether it is an external dependency / unresolved.",
    input: findModuleInput,
    async run(args) {
      const from = env.sandbox.resolve(args.from_file, "file").rel;
      const m = env.withSymbols((ix) => ix.findModule(args.specifier, from));
      const spec = JSON.stringify(args.specifier);
      switch (m.kind) {
        case "file":
          return ok(`${spec} from ${from} resolves to the project file ${m.path}.`);
        case "package": {
          const files = visible(
            env,
            (m.files ?? []).map((p) => ({ path: p })),
          );
          return ok(
            `${spec} from ${from} resolves to the package folder ${m.path}/ with ${plural(files.length, "file")}:\n${files
              .slice(0, 100)
              .map((f) => `  ${f.path}`)
              .join("\n")}${files.length > 100 ? `\n  … ${files.length - 100} more` : ""}`,
          );
        }
        case "external":
          return ok(
            `${spec} from ${from} is external: a dependency or the standard library, not part of this project's code.`,
          );
        default:
          return ok(
            `${spec} from ${from} looks like a project import but matches no file in the snapshot (unresolved). It may be generated, excluded by ignore rules, or mistyped; try list_dir or grep.`,
          );
      }
    },
  });
}
