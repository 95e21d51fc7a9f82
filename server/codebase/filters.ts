/**
 * Ignore rules: Argus's DEFAULT_IGNORES plus the project's own (nested) .gitignore files, behind ONE
 * matcher object. The walker, every ingest source and every agent tool ask the same matcher, so what
 * the agent can open is exactly what was indexed.
 *
 * Semantics:
 * - DEFAULT_IGNORES always apply; a project's `!pattern` cannot re-include node_modules or .env
 *   (they are excluded for cost and for secrets, not by the project's choice).
 * - Each .gitignore applies to its own directory and below, relative to that directory; a deeper file
 *   overrides a shallower one and, as in git, nothing inside an ignored directory can be re-included.
 * - Defaults match case-insensitively (`*.PNG`, `Node_Modules/`); .gitignore patterns match
 *   case-sensitively, as git does on Linux.
 */
import { lstatSync, readFileSync } from "node:fs";
import path from "node:path";
import ignore, { type Ignore } from "ignore";

/** The Argus seed's union ignore spec, in .gitignore syntax. */
export const DEFAULT_IGNORES: readonly string[] = [
  // vendored deps / virtualenvs
  "node_modules/",
  "bower_components/",
  "jspm_packages/",
  "vendor/",
  "Pods/",
  ".venv/",
  "venv/",
  "__pycache__/",
  "*.pyc",
  "*.pyo",
  ".tox/",
  ".nox/",
  ".eggs/",
  "*.egg-info/",
  // build outputs
  "dist/",
  "build/",
  "target/",
  "out/",
  ".next/",
  ".nuxt/",
  ".output/",
  ".svelte-kit/",
  ".turbo/",
  ".parcel-cache/",
  ".vercel/",
  ".serverless/",
  ".gradle/",
  ".angular/",
  ".expo/",
  ".docusaurus/",
  "storybook-static/",
  "_site/",
  ".cache/",
  ".terraform/",
  "cmake-build-*/",
  "*.o",
  "*.obj",
  "*.a",
  "*.lib",
  "*.so",
  "*.dylib",
  "*.dll",
  "*.exe",
  "*.class",
  "*.jar",
  "*.war",
  "*.pyd",
  "*.wasm",
  // test / coverage artifacts
  "coverage/",
  ".nyc_output/",
  "htmlcov/",
  "__snapshots__/",
  ".pytest_cache/",
  ".mypy_cache/",
  ".ruff_cache/",
  ".hypothesis/",
  ".coverage",
  ".coverage.*",
  // editor / VCS (no trailing slash: a `.git` *file* marks a worktree or submodule)
  ".git",
  ".hg",
  ".svn",
  ".idea/",
  ".vscode/",
  ".vs/",
  ".DS_Store",
  "Thumbs.db",
  "*.swp",
  "*.swo",
  "*~",
  // lockfiles, named explicitly
  "package-lock.json",
  "npm-shrinkwrap.json",
  "yarn.lock",
  "pnpm-lock.yaml",
  "bun.lock",
  "bun.lockb",
  "poetry.lock",
  "Pipfile.lock",
  "uv.lock",
  "pdm.lock",
  "Cargo.lock",
  "Gemfile.lock",
  "composer.lock",
  "go.sum",
  "mix.lock",
  "pubspec.lock",
  "Podfile.lock",
  "packages.lock.json",
  "flake.lock",
  // secrets; the documented templates stay (they describe configuration without holding it)
  ".env",
  ".env.*",
  "!.env.example",
  "!.env.sample",
  "!.env.template",
  // minified / sourcemap noise
  "*.min.js",
  "*.min.mjs",
  "*.min.css",
  "*.map",
  // binary assets: images, fonts, archives, audio/video, office documents, databases
  "*.png",
  "*.jpg",
  "*.jpeg",
  "*.gif",
  "*.bmp",
  "*.ico",
  "*.webp",
  "*.tif",
  "*.tiff",
  "*.psd",
  "*.heic",
  "*.avif",
  "*.woff",
  "*.woff2",
  "*.ttf",
  "*.otf",
  "*.eot",
  "*.zip",
  "*.tar",
  "*.gz",
  "*.tgz",
  "*.bz2",
  "*.xz",
  "*.7z",
  "*.rar",
  "*.zst",
  "*.mp3",
  "*.wav",
  "*.ogg",
  "*.flac",
  "*.aac",
  "*.m4a",
  "*.mp4",
  "*.mov",
  "*.avi",
  "*.mkv",
  "*.webm",
  "*.pdf",
  "*.doc",
  "*.docx",
  "*.xls",
  "*.xlsx",
  "*.ppt",
  "*.pptx",
  "*.sqlite",
  "*.sqlite3",
  "*.db",
];

/** .gitignore files bigger than this are not read (a real one is a few KB). */
export const MAX_GITIGNORE_BYTES = 1024 * 1024;

export interface IgnoreVerdict {
  ignored: boolean;
  /** Where the deciding rule lives: "default" or the .gitignore's path ("src/.gitignore"). */
  source?: string;
  pattern?: string;
  /** The ancestor directory ("dist/") that is ignored, when the verdict comes from a parent. */
  via?: string;
}

export interface IgnoreMatcher {
  /**
   * Whether a path (posix, relative to the snapshot root) is ignored. Directories end with "/" or pass
   * isDir. Paths that are absolute or climb out with ".." count as ignored: fail closed.
   */
  ignores(relPath: string, isDir?: boolean): boolean;
  /** The same decision with the rule that made it, for "why is this file missing?" answers. */
  explain(relPath: string, isDir?: boolean): IgnoreVerdict;
}

export interface IgnoreMatcherOptions {
  /** Snapshot root: .gitignore files are read from it lazily (regular files only, never via symlinks). */
  root?: string;
  /** Instead of reading from disk: the content of `<dir>/.gitignore` ("" is the root), or undefined. */
  readGitignore?: (dir: string) => string | undefined;
  /** Honour the project's .gitignore files (default true). */
  gitignore?: boolean;
  /** More patterns from the caller, applied like the defaults (cannot be re-included). */
  extraPatterns?: readonly string[];
}

/** Normalises to "a/b" (dirs "a/b/"); undefined when the path is not a contained relative path. */
function normalise(relPath: string, isDir: boolean | undefined): string | undefined {
  if (relPath.includes("\0")) return undefined;
  const dir = isDir === true || relPath.endsWith("/");
  const parts: string[] = [];
  for (const part of relPath.split("/")) {
    if (part === "" || part === ".") continue;
    if (part === "..") return undefined;
    parts.push(part);
  }
  if (relPath.startsWith("/") || /^[A-Za-z]:/.test(relPath)) return undefined;
  if (parts.length === 0) return "";
  return parts.join("/") + (dir ? "/" : "");
}

function diskGitignoreReader(root: string): (dir: string) => string | undefined {
  return (dir) => {
    const file = path.join(root, dir, ".gitignore");
    try {
      const st = lstatSync(file);
      // A symlinked .gitignore could point anywhere on the host: never read through it.
      if (!st.isFile() || st.size > MAX_GITIGNORE_BYTES) return undefined;
      return readFileSync(file, "utf8");
    } catch {
      return undefined;
    }
  };
}

export function createIgnoreMatcher(options: IgnoreMatcherOptions = {}): IgnoreMatcher {
  const defaults = ignore({ ignorecase: true }).add([...DEFAULT_IGNORES, ...(options.extraPatterns ?? [])]);
  const useGitignore = options.gitignore ?? true;
  const read =
    options.readGitignore ?? (options.root !== undefined ? diskGitignoreReader(options.root) : () => undefined);
  // Per directory ("" = root, else "a/b/"): its .gitignore rules, or null when it has none.
  const layers = new Map<string, Ignore | null>();
  // Verdicts for directories already decided, so deep trees don't re-test every ancestor.
  const dirVerdicts = new Map<string, IgnoreVerdict>();

  function layer(dir: string): Ignore | null {
    let ig = layers.get(dir);
    if (ig === undefined) {
      const text = useGitignore ? read(dir.replace(/\/$/, "")) : undefined;
      ig = text === undefined ? null : ignore({ ignorecase: false }).add(text);
      layers.set(dir, ig);
    }
    return ig;
  }

  /** Verdict for one path whose ancestors are known not to be ignored. */
  function own(p: string): IgnoreVerdict {
    const d = defaults.test(p);
    if (d.ignored) return { ignored: true, source: "default", pattern: d.rule?.pattern };
    // Deepest .gitignore first: the first that has an opinion (ignore or re-include) decides.
    const segments = p.replace(/\/$/, "").split("/");
    for (let depth = segments.length - 1; depth >= 0; depth--) {
      const dir = depth === 0 ? "" : segments.slice(0, depth).join("/") + "/";
      const ig = layer(dir);
      if (!ig) continue;
      const t = ig.test(p.slice(dir.length));
      if (t.ignored) return { ignored: true, source: `${dir}.gitignore`, pattern: t.rule?.pattern };
      if (t.unignored) return { ignored: false };
    }
    return { ignored: false };
  }

  function explain(relPath: string, isDir?: boolean): IgnoreVerdict {
    const p = normalise(relPath, isDir);
    if (p === undefined) return { ignored: true, source: "invalid path" };
    if (p === "") return { ignored: false };
    const segments = p.replace(/\/$/, "").split("/");
    for (let i = 1; i < segments.length; i++) {
      const dir = segments.slice(0, i).join("/") + "/";
      let v = dirVerdicts.get(dir);
      if (!v) {
        v = own(dir);
        dirVerdicts.set(dir, v);
      }
      if (v.ignored) return { ...v, via: v.via ?? dir };
    }
    if (p.endsWith("/")) {
      let v = dirVerdicts.get(p);
      if (!v) {
        v = own(p);
        dirVerdicts.set(p, v);
      }
      return v;
    }
    return own(p);
  }

  return {
    explain,
    ignores: (relPath, isDir) => explain(relPath, isDir).ignored,
  };
}
