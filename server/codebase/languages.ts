/**
 * Language detection for source files: by exact file name (Dockerfile, Makefile, …), then by
 * extension, then by the shebang on the first line. Plus the binary test the walker uses.
 *
 * The ids are stable strings stored with each file; the symbol indexer keys its grammars on them
 * (typescript, tsx, javascript, python, go, rust, java have tree-sitter grammars).
 */

export const LANGUAGE_IDS = [
  "typescript",
  "tsx",
  "javascript",
  "python",
  "go",
  "rust",
  "java",
  "c",
  "cpp",
  "csharp",
  "objectivec",
  "ruby",
  "php",
  "kotlin",
  "swift",
  "scala",
  "groovy",
  "dart",
  "lua",
  "perl",
  "r",
  "julia",
  "elixir",
  "erlang",
  "haskell",
  "ocaml",
  "fsharp",
  "clojure",
  "zig",
  "shell",
  "powershell",
  "batch",
  "sql",
  "graphql",
  "protobuf",
  "hcl",
  "yaml",
  "json",
  "toml",
  "xml",
  "ini",
  "markdown",
  "html",
  "css",
  "scss",
  "less",
  "vue",
  "svelte",
  "dockerfile",
  "makefile",
  "cmake",
  "starlark",
  "text",
] as const;

export type LanguageId = (typeof LANGUAGE_IDS)[number];

/** Fallback for a text file nothing else recognises. */
export const PLAIN_TEXT: LanguageId = "text";

// Extensions are matched lower-cased, except the few where case carries meaning (see byExactExt).
const byExt: Record<string, LanguageId> = {
  ts: "typescript",
  mts: "typescript",
  cts: "typescript",
  tsx: "tsx",
  js: "javascript",
  mjs: "javascript",
  cjs: "javascript",
  jsx: "javascript",
  py: "python",
  pyi: "python",
  pyw: "python",
  go: "go",
  rs: "rust",
  java: "java",
  c: "c",
  h: "c",
  cc: "cpp",
  cpp: "cpp",
  cxx: "cpp",
  "c++": "cpp",
  hh: "cpp",
  hpp: "cpp",
  hxx: "cpp",
  "h++": "cpp",
  ipp: "cpp",
  ino: "cpp",
  cs: "csharp",
  csx: "csharp",
  m: "objectivec",
  mm: "objectivec",
  rb: "ruby",
  rake: "ruby",
  gemspec: "ruby",
  ru: "ruby",
  php: "php",
  phtml: "php",
  kt: "kotlin",
  kts: "kotlin",
  swift: "swift",
  scala: "scala",
  sc: "scala",
  groovy: "groovy",
  gradle: "groovy",
  dart: "dart",
  lua: "lua",
  pl: "perl",
  pm: "perl",
  r: "r",
  jl: "julia",
  ex: "elixir",
  exs: "elixir",
  erl: "erlang",
  hrl: "erlang",
  hs: "haskell",
  ml: "ocaml",
  mli: "ocaml",
  fs: "fsharp",
  fsi: "fsharp",
  fsx: "fsharp",
  clj: "clojure",
  cljs: "clojure",
  cljc: "clojure",
  edn: "clojure",
  zig: "zig",
  sh: "shell",
  bash: "shell",
  zsh: "shell",
  ksh: "shell",
  fish: "shell",
  ps1: "powershell",
  psm1: "powershell",
  psd1: "powershell",
  bat: "batch",
  cmd: "batch",
  sql: "sql",
  graphql: "graphql",
  gql: "graphql",
  proto: "protobuf",
  tf: "hcl",
  tfvars: "hcl",
  hcl: "hcl",
  yml: "yaml",
  yaml: "yaml",
  json: "json",
  jsonc: "json",
  json5: "json",
  toml: "toml",
  xml: "xml",
  xsd: "xml",
  xsl: "xml",
  xslt: "xml",
  csproj: "xml",
  fsproj: "xml",
  vbproj: "xml",
  props: "xml",
  plist: "xml",
  ini: "ini",
  cfg: "ini",
  md: "markdown",
  markdown: "markdown",
  mdx: "markdown",
  html: "html",
  htm: "html",
  xhtml: "html",
  css: "css",
  scss: "scss",
  sass: "scss",
  less: "less",
  vue: "vue",
  svelte: "svelte",
  dockerfile: "dockerfile",
  mk: "makefile",
  mak: "makefile",
  cmake: "cmake",
  bzl: "starlark",
  star: "starlark",
  txt: "text",
};

const byName: Record<string, LanguageId> = {
  dockerfile: "dockerfile",
  containerfile: "dockerfile",
  makefile: "makefile",
  gnumakefile: "makefile",
  "cmakelists.txt": "cmake",
  rakefile: "ruby",
  gemfile: "ruby",
  podfile: "ruby",
  vagrantfile: "ruby",
  guardfile: "ruby",
  jenkinsfile: "groovy",
  build: "starlark",
  "build.bazel": "starlark",
  workspace: "starlark",
  "workspace.bazel": "starlark",
  ".bashrc": "shell",
  ".bash_profile": "shell",
  ".zshrc": "shell",
  ".profile": "shell",
};

// Interpreter (version digits stripped) → language, for extension-less scripts.
const byInterpreter: Record<string, LanguageId> = {
  node: "javascript",
  nodejs: "javascript",
  deno: "typescript",
  bun: "typescript",
  tsx: "typescript",
  "ts-node": "typescript",
  python: "python",
  pypy: "python",
  sh: "shell",
  bash: "shell",
  zsh: "shell",
  dash: "shell",
  ksh: "shell",
  ash: "shell",
  fish: "shell",
  ruby: "ruby",
  perl: "perl",
  php: "php",
  lua: "lua",
  rscript: "r",
  pwsh: "powershell",
  julia: "julia",
  elixir: "elixir",
  groovy: "groovy",
  make: "makefile",
};

/** Language from the file name alone (no content): exact name, Dockerfile.* / *.dockerfile, extension. */
export function languageFromPath(filePath: string): LanguageId | undefined {
  const base = filePath.slice(filePath.lastIndexOf("/") + 1);
  const lower = base.toLowerCase();
  const named = byName[lower];
  if (named) return named;
  // Dockerfile.dev, Containerfile.prod: the suffix names a variant, not a language.
  if (/^(dockerfile|containerfile)\./.test(lower)) return "dockerfile";
  const dot = lower.lastIndexOf(".");
  if (dot <= 0) return undefined; // no extension, or a dotfile like ".env"
  return byExt[lower.slice(dot + 1)];
}

/** Language from a `#!` first line, e.g. `#!/usr/bin/env -S deno run` → typescript. */
export function languageFromShebang(firstLine: string): LanguageId | undefined {
  const m = /^#!\s*(\S+)(.*)$/.exec(firstLine.replace(/\r$/, ""));
  if (!m) return undefined;
  let program = m[1]!.slice(m[1]!.lastIndexOf("/") + 1);
  if (program === "env") {
    // `env [-S] [-i] [NAME=value …] program args`: the first word that is neither a flag nor an assignment.
    program =
      (m[2] ?? "")
        .trim()
        .split(/\s+/)
        .find((w) => w !== "" && !w.startsWith("-") && !w.includes("=")) ?? "";
  }
  const name = program.toLowerCase().replace(/[\d.]+$/, ""); // python3.12 → python
  return byInterpreter[name];
}

/**
 * Detects a file's language. `head` (optional) is the start of its content, used for the shebang when
 * the name says nothing. Unknown text files are "text".
 */
export function detectLanguage(filePath: string, head?: Uint8Array | string): LanguageId {
  const fromPath = languageFromPath(filePath);
  if (fromPath) return fromPath;
  if (head !== undefined) {
    const text = typeof head === "string" ? head.slice(0, 256) : Buffer.from(head.subarray(0, 256)).toString("utf8");
    if (text.startsWith("#!")) {
      const fromShebang = languageFromShebang(text.split("\n", 1)[0]!);
      if (fromShebang) return fromShebang;
    }
  }
  return PLAIN_TEXT;
}

/** Bytes inspected by isBinary: git's heuristic (a NUL in the first 8000 bytes) with a round number. */
export const BINARY_SNIFF_BYTES = 8192;

/** True when the content looks binary: a NUL byte in its first 8 KB. UTF-16 text counts as binary. */
export function isBinary(content: Uint8Array): boolean {
  const n = Math.min(content.length, BINARY_SNIFF_BYTES);
  return content.subarray(0, n).includes(0);
}
