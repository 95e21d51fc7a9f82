/**
 * What module resolution needs to know about a snapshot beyond its file list: tsconfig/jsconfig
 * `paths` and `baseUrl`, workspace packages (package.json names), Go modules (go.mod) and Python
 * source roots. Read once at index time and stored with the index, so queries never touch the
 * snapshot. Every file read here is capped and every parse tolerant: a broken config is ignored.
 */
import { readFile, stat } from "node:fs/promises";
import path from "node:path";

export interface TsConfigEntry {
  /** Directory of the tsconfig (posix, relative to the root; "" for the root). */
  dir: string;
  /** Resolved baseUrl (posix, relative to the root), or null. */
  baseUrl: string | null;
  /** `paths` patterns → targets already resolved against their base (posix, relative to the root). */
  paths: Record<string, string[]>;
}

export interface PackageEntry {
  name: string;
  dir: string;
  /** Entry file (posix, relative to the root) from exports["."] / module / main / types, if any. */
  entry: string | null;
}

export interface GoModule {
  dir: string;
  path: string;
}

export interface ModuleConfig {
  tsconfigs: TsConfigEntry[];
  packages: PackageEntry[];
  goModules: GoModule[];
  pythonRoots: string[];
}

const MAX_CONFIG_BYTES = 1024 * 1024;

export async function collectModuleConfig(root: string, files: string[]): Promise<ModuleConfig> {
  const config: ModuleConfig = { tsconfigs: [], packages: [], goModules: [], pythonRoots: [""] };
  const base = (p: string) => p.slice(p.lastIndexOf("/") + 1);
  const dirOf = (p: string) => (p.includes("/") ? p.slice(0, p.lastIndexOf("/")) : "");
  for (const file of files) {
    const name = base(file);
    try {
      if (name === "tsconfig.json" || name === "jsconfig.json") {
        const entry = await loadTsconfig(root, file);
        if (entry) config.tsconfigs.push(entry);
      } else if (name === "package.json" && !file.includes("node_modules/")) {
        const pkg = await readJson(root, file);
        if (pkg && typeof pkg.name === "string")
          config.packages.push({ name: pkg.name, dir: dirOf(file), entry: packageEntry(pkg, dirOf(file)) });
      } else if (name === "go.mod") {
        const text = await readCapped(root, file);
        const m = text && /^\s*module\s+("?)([^\s"]+)\1\s*$/m.exec(text);
        if (m) config.goModules.push({ dir: dirOf(file), path: m[2]! });
      } else if (name === "pyproject.toml" || name === "setup.py" || name === "setup.cfg") {
        const dir = dirOf(file);
        for (const r of [dir, dir ? `${dir}/src` : "src"])
          if (!config.pythonRoots.includes(r)) config.pythonRoots.push(r);
      }
    } catch {
      // An unreadable or malformed config only means fewer specifiers resolve.
    }
  }
  if (!config.pythonRoots.includes("src") && files.some((f) => f.startsWith("src/") && f.endsWith(".py")))
    config.pythonRoots.push("src");
  return config;
}

async function readCapped(root: string, rel: string): Promise<string | null> {
  const abs = path.join(root, rel);
  if ((await stat(abs)).size > MAX_CONFIG_BYTES) return null;
  return readFile(abs, "utf8");
}

async function readJson(root: string, rel: string): Promise<Record<string, unknown> | null> {
  const text = await readCapped(root, rel);
  if (text === null) return null;
  const value: unknown = JSON.parse(stripJsonComments(text));
  return value && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
}

/** JSONC → JSON: drops comments and trailing commas, leaving strings untouched. */
export function stripJsonComments(text: string): string {
  let out = "";
  let i = 0;
  while (i < text.length) {
    const ch = text[i]!;
    if (ch === '"') {
      const start = i++;
      while (i < text.length && text[i] !== '"') i += text[i] === "\\" ? 2 : 1;
      out += text.slice(start, ++i);
    } else if (ch === "/" && text[i + 1] === "/") {
      while (i < text.length && text[i] !== "\n") i++;
    } else if (ch === "/" && text[i + 1] === "*") {
      const end = text.indexOf("*/", i + 2);
      i = end < 0 ? text.length : end + 2;
    } else {
      out += ch;
      i++;
    }
  }
  return out.replace(/,(\s*[}\]])/g, "$1");
}

const posix = path.posix;

/** tsconfig with relative `extends` followed (inside the snapshot, a few levels deep). */
async function loadTsconfig(root: string, rel: string): Promise<TsConfigEntry | null> {
  let baseUrl: string | null = null;
  let paths: Record<string, string[]> | null = null;
  const seen = new Set<string>();
  let current: string | null = rel;
  for (let depth = 0; current && depth < 5 && !seen.has(current); depth++) {
    seen.add(current);
    const json: Record<string, unknown> | null = await readJson(root, current).catch(() => null);
    if (!json) break;
    const dir: string = posix.dirname(current) === "." ? "" : posix.dirname(current);
    const options = (json.compilerOptions ?? {}) as Record<string, unknown>;
    // The nearest config that sets an option wins; its relative values are relative to it.
    if (baseUrl === null && typeof options.baseUrl === "string")
      baseUrl = posix.normalize(posix.join(dir, options.baseUrl));
    if (paths === null && options.paths && typeof options.paths === "object") {
      const base = typeof options.baseUrl === "string" ? posix.join(dir, options.baseUrl) : dir;
      paths = {};
      for (const [pattern, targets] of Object.entries(options.paths as Record<string, unknown>)) {
        if (Array.isArray(targets))
          paths[pattern] = targets
            .filter((t): t is string => typeof t === "string")
            .map((t) => posix.normalize(posix.join(base, t)));
      }
    }
    const ext: string | null =
      typeof json.extends === "string" && json.extends.startsWith(".")
        ? posix.normalize(posix.join(dir, json.extends))
        : null;
    current = ext && !ext.startsWith("..") ? (ext.endsWith(".json") ? ext : `${ext}.json`) : null;
  }
  const dir = posix.dirname(rel) === "." ? "" : posix.dirname(rel);
  return { dir, baseUrl: baseUrl === "." ? "" : baseUrl, paths: paths ?? {} };
}

function packageEntry(pkg: Record<string, unknown>, dir: string): string | null {
  const exp = pkg.exports;
  let entry: unknown =
    typeof exp === "string"
      ? exp
      : exp && typeof exp === "object"
        ? ((exp as Record<string, unknown>)["."] ?? null)
        : null;
  if (entry && typeof entry === "object") {
    const cond = entry as Record<string, unknown>;
    entry = cond.types ?? cond.import ?? cond.default ?? cond.require ?? null;
  }
  if (typeof entry !== "string") entry = pkg.source ?? pkg.module ?? pkg.main ?? pkg.types ?? null;
  return typeof entry === "string" ? posix.normalize(posix.join(dir, entry)) : null;
}
