/** Shapes of the symbol index: what a file pass extracts and what the index answers. */

/** A file of the snapshot, as the ingest lists it: posix path relative to the root, language id. */
export interface SourceFile {
  path: string;
  language: string;
}

export type SymbolKind =
  | "function"
  | "method"
  | "constructor"
  | "class"
  | "struct"
  | "interface"
  | "trait"
  | "enum"
  | "type"
  | "module"
  | "constant"
  | "variable"
  | "field"
  | "macro"
  | "impl"
  | "other";

export interface Definition {
  name: string;
  kind: SymbolKind;
  /** Enclosing class / interface / impl / module / function name, or null at top level. */
  container: string | null;
  /** 1-based, inclusive. Outlines without end information repeat startLine. */
  startLine: number;
  endLine: number;
  /** The definition's first line, trimmed and capped: what a reader needs to recognise it. */
  signature: string;
  exported: boolean;
}

export type ReferenceKind = "call" | "new" | "type" | "implementation" | "import";

export interface Reference {
  name: string;
  kind: ReferenceKind;
  line: number;
  column: number;
}

export type ImportKind = "import" | "export" | "require" | "dynamic" | "use";

export interface ImportRef {
  /** As written: "./util", "@/lib/x", "os.path", ".models", "github.com/x/y/pkg", "std::io". */
  specifier: string;
  kind: ImportKind;
  line: number;
  /** Imported names where the syntax says them (named imports, `from x import a, b`). */
  names: string[];
}

export type FileStatus =
  /** parsed with a tree-sitter grammar */
  | "parsed"
  /** no grammar: line-based outline (ctags or regexes) */
  | "outline"
  /** deliberately not parsed: too large, binary, timed out (note says which) */
  | "skipped"
  /** could not be read or processed (note says why) */
  | "error";

export interface FileSymbols {
  path: string;
  language: string;
  status: FileStatus;
  note: string | null;
  lines: number;
  bytes: number;
  /** The parse tree contains ERROR/MISSING nodes: symbols are best-effort. */
  parseErrors: boolean;
  definitions: Definition[];
  references: Reference[];
  imports: ImportRef[];
}

export type ModuleTargetKind = "file" | "package" | "external" | "unresolved";

export interface ModuleResolution {
  specifier: string;
  fromFile: string;
  /** file: one source file; package: a Go package directory (files lists it); external: a
   * dependency or standard library outside the snapshot; unresolved: looks local but no file matches. */
  kind: ModuleTargetKind;
  path: string | null;
  files?: string[];
}

export interface SymbolHit extends Definition {
  path: string;
  language: string;
}

export interface ReferenceHit extends Reference {
  path: string;
}
