/**
 * Import specifier → file of the snapshot, per language family:
 * - TS/JS: relative paths with extension probing (incl. the `.js` → `.ts` ESM convention and index
 *   files), tsconfig `paths`/`baseUrl`, workspace packages by name; anything else is external.
 * - Python: relative (`.x`, `..x.y`) and absolute dotted paths against the source roots, then a
 *   unique path-suffix match; otherwise external (stdlib / installed).
 * - Go: module path (go.mod) + package directory → the package's files; otherwise external.
 * - Java: fully-qualified class → the file whose path ends with it.
 * Pure and synchronous over the file list, so queries can resolve any specifier, not just indexed ones.
 */
import path from "node:path";
import type { ModuleResolution } from "../types.ts";
import type { ModuleConfig, TsConfigEntry } from "./config.ts";

const posix = path.posix;

const JS_EXTENSIONS = [
  ".ts",
  ".tsx",
  ".d.ts",
  ".js",
  ".jsx",
  ".mjs",
  ".cjs",
  ".mts",
  ".cts",
  ".json",
  ".vue",
  ".svelte",
];
const INDEX_FILES = ["index.ts", "index.tsx", "index.d.ts", "index.js", "index.jsx", "index.mjs", "index.cjs"];
/** TS projects import their own .ts files with the extension they will have once compiled. */
const COMPILED_TO_SOURCE: Record<string, string[]> = {
  ".js": [".ts", ".tsx"],
  ".jsx": [".tsx"],
  ".mjs": [".mts"],
  ".cjs": [".cts"],
};

type Family = "js" | "python" | "go" | "java" | null;

function familyOf(file: string): Family {
  const ext = posix.extname(file).toLowerCase();
  if ([".ts", ".tsx", ".js", ".jsx", ".mjs", ".cjs", ".mts", ".cts", ".vue", ".svelte"].includes(ext)) return "js";
  if (ext === ".py" || ext === ".pyi") return "python";
  if (ext === ".go") return "go";
  if (ext === ".java") return "java";
  return null;
}

export class ModuleResolver {
  private files: Set<string>;
  private goDirs = new Map<string, string[]>();
  private byBasename = new Map<string, string[]>();
  private tsconfigs: TsConfigEntry[];

  constructor(
    private config: ModuleConfig,
    files: Iterable<string>,
  ) {
    this.files = new Set(files);
    for (const f of this.files) {
      const dir = posix.dirname(f) === "." ? "" : posix.dirname(f);
      if (f.endsWith(".go")) this.goDirs.set(dir, [...(this.goDirs.get(dir) ?? []), f]);
      if (f.endsWith(".py") || f.endsWith(".java")) {
        const b = posix.basename(f);
        this.byBasename.set(b, [...(this.byBasename.get(b) ?? []), f]);
      }
    }
    // Deepest first: the nearest tsconfig above a file is the one that applies to it.
    this.tsconfigs = [...config.tsconfigs].sort((a, b) => b.dir.length - a.dir.length);
  }

  resolve(specifier: string, fromFile: string): ModuleResolution {
    const base = { specifier, fromFile };
    const target = (() => {
      switch (familyOf(fromFile)) {
        case "js":
          return this.resolveJs(specifier, fromFile);
        case "python":
          return this.resolvePython(specifier, fromFile);
        case "go":
          return this.resolveGo(specifier);
        case "java":
          return this.resolveJava(specifier);
        default:
          return this.resolveJs(specifier, fromFile);
      }
    })();
    return { ...base, ...target };
  }

  private file(p: string | null): Omit<ModuleResolution, "specifier" | "fromFile"> {
    return p ? { kind: "file", path: p } : { kind: "unresolved", path: null };
  }

  // ---- TS / JS -------------------------------------------------------------------------------

  private probe(candidate: string): string | null {
    const c = posix.normalize(candidate);
    if (c.startsWith("../") || c === "..") return null;
    const clean = c === "." ? "" : c.replace(/\/$/, "");
    if (this.files.has(clean)) return clean;
    const ext = posix.extname(clean);
    for (const source of COMPILED_TO_SOURCE[ext] ?? []) {
      const swapped = clean.slice(0, -ext.length) + source;
      if (this.files.has(swapped)) return swapped;
    }
    for (const e of JS_EXTENSIONS) if (this.files.has(clean + e)) return clean + e;
    const pkg = this.config.packages.find((p) => p.dir === clean && p.entry);
    if (pkg?.entry) {
      const entry = this.probeFile(pkg.entry);
      if (entry) return entry;
    }
    for (const index of INDEX_FILES) {
      const p = clean ? `${clean}/${index}` : index;
      if (this.files.has(p)) return p;
    }
    return null;
  }

  /** An entry named by package.json: itself, or its source twin (dist/x.js → src/x.ts is not guessed). */
  private probeFile(p: string): string | null {
    if (this.files.has(p)) return p;
    const ext = posix.extname(p);
    for (const source of COMPILED_TO_SOURCE[ext] ?? [])
      if (this.files.has(p.slice(0, -ext.length) + source)) return p.slice(0, -ext.length) + source;
    return null;
  }

  private resolveJs(spec: string, from: string): Omit<ModuleResolution, "specifier" | "fromFile"> {
    if (spec.startsWith("./") || spec.startsWith("../") || spec === "." || spec === "..") {
      return this.file(this.probe(posix.join(posix.dirname(from), spec)));
    }
    if (spec.startsWith("/")) return this.file(this.probe(spec.slice(1)));
    if (/^[a-z]+:/.test(spec)) return { kind: "external", path: null }; // node:fs, https://…
    const tsconfig = this.tsconfigs.find((t) => t.dir === "" || from.startsWith(`${t.dir}/`));
    if (tsconfig) {
      let matchedPattern = false;
      for (const [pattern, targets] of Object.entries(tsconfig.paths)) {
        const star = pattern.indexOf("*");
        let hole: string | null = null;
        if (star < 0) hole = pattern === spec ? "" : null;
        else {
          const prefix = pattern.slice(0, star);
          const suffix = pattern.slice(star + 1);
          if (spec.startsWith(prefix) && spec.endsWith(suffix) && spec.length >= prefix.length + suffix.length)
            hole = spec.slice(prefix.length, spec.length - suffix.length);
        }
        if (hole === null) continue;
        matchedPattern = true;
        for (const target of targets) {
          const found = this.probe(target.replace("*", hole));
          if (found) return { kind: "file", path: found };
        }
      }
      if (tsconfig.baseUrl !== null) {
        const found = this.probe(posix.join(tsconfig.baseUrl, spec));
        if (found) return { kind: "file", path: found };
      }
      if (matchedPattern) return { kind: "unresolved", path: null };
    }
    // Workspace packages (monorepos): import "@acme/ui" or "@acme/ui/button".
    for (const pkg of this.config.packages) {
      if (spec === pkg.name) {
        const found = pkg.entry ? this.probeFile(pkg.entry) : this.probe(pkg.dir);
        if (found) return { kind: "file", path: found };
      } else if (spec.startsWith(`${pkg.name}/`)) {
        const sub = spec.slice(pkg.name.length + 1);
        const found = this.probe(posix.join(pkg.dir, sub)) ?? this.probe(posix.join(pkg.dir, "src", sub));
        if (found) return { kind: "file", path: found };
      }
    }
    return { kind: "external", path: null };
  }

  // ---- Python ----------------------------------------------------------------------------------

  private pyModule(dir: string, parts: string[]): string | null {
    const stem = posix.join(dir || ".", ...parts);
    const inits = [`${stem}/__init__.py`, `${stem}/__init__.pyi`];
    // `from . import x` names the package itself: only its __init__ can match.
    for (const candidate of parts.length ? [`${stem}.py`, `${stem}.pyi`, ...inits] : inits) {
      const c = posix.normalize(candidate).replace(/^\.\//, "");
      if (this.files.has(c)) return c;
    }
    return null;
  }

  private resolvePython(spec: string, from: string): Omit<ModuleResolution, "specifier" | "fromFile"> {
    const dots = /^\.*/.exec(spec)![0].length;
    const rest = spec.slice(dots);
    const parts = rest ? rest.split(".") : [];
    if (dots > 0) {
      let dir = posix.dirname(from);
      for (let i = 1; i < dots; i++) dir = posix.dirname(dir);
      if (dir === ".") dir = "";
      return this.file(this.pyModule(dir, parts));
    }
    for (const root of this.config.pythonRoots) {
      const found = this.pyModule(root, parts);
      if (found) return { kind: "file", path: found };
    }
    // Packages under some other root: a unique file whose path ends with the dotted path.
    const tail = `${parts.join("/")}.py`;
    const initTail = `${parts.join("/")}/__init__.py`;
    const candidates = [
      ...(this.byBasename.get(`${parts[parts.length - 1]}.py`) ?? []),
      ...(this.byBasename.get("__init__.py") ?? []),
    ].filter((f) => f === tail || f.endsWith(`/${tail}`) || f === initTail || f.endsWith(`/${initTail}`));
    if (candidates.length === 1) return { kind: "file", path: candidates[0]! };
    return { kind: "external", path: null };
  }

  // ---- Go -----------------------------------------------------------------------------------

  private resolveGo(spec: string): Omit<ModuleResolution, "specifier" | "fromFile"> {
    const mod = this.config.goModules
      .filter((m) => spec === m.path || spec.startsWith(`${m.path}/`))
      .sort((a, b) => b.path.length - a.path.length)[0];
    const candidates: string[] = [];
    if (mod) candidates.push(posix.join(mod.dir, spec.slice(mod.path.length + 1)));
    candidates.push(`vendor/${spec}`);
    for (const dir of candidates) {
      const d = posix.normalize(dir) === "." ? "" : posix.normalize(dir);
      const files = this.goDirs.get(d);
      if (files?.length) {
        // Non-test files first: they are the package a caller imports.
        const sorted = [...files].sort(
          (a, b) => Number(a.endsWith("_test.go")) - Number(b.endsWith("_test.go")) || a.localeCompare(b),
        );
        return { kind: "package", path: d, files: sorted };
      }
    }
    return mod ? { kind: "unresolved", path: null } : { kind: "external", path: null };
  }

  // ---- Java -----------------------------------------------------------------------------------

  private resolveJava(spec: string): Omit<ModuleResolution, "specifier" | "fromFile"> {
    const parts = spec.replace(/\.\*$/, "").split(".");
    // Static imports name a member: try the class, then its enclosing segments.
    for (let n = parts.length; n > 1; n--) {
      const tail = `${parts.slice(0, n).join("/")}.java`;
      const hits = (this.byBasename.get(`${parts[n - 1]}.java`) ?? []).filter(
        (f) => f === tail || f.endsWith(`/${tail}`),
      );
      if (hits.length) return { kind: "file", path: hits[0]! };
    }
    return { kind: "external", path: null };
  }
}
