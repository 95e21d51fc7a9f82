/**
 * For tests and the bench only: copy a fixture tree into a temporary snapshot (dropping the
 * `.fixture` suffix that keeps fixture TS/JS away from the repository's tsc), expanding generated
 * values, and list its files with a language guessed from the extension. The real language detection
 * belongs to the ingest; this stand-in keeps these tests independent of it.
 */
import { randomBytes } from "node:crypto";
import { cpSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import type { SourceFile } from "./types.ts";

const LANGUAGES: Record<string, string> = {
  ".ts": "typescript",
  ".mts": "typescript",
  ".cts": "typescript",
  ".tsx": "tsx",
  ".js": "javascript",
  ".mjs": "javascript",
  ".cjs": "javascript",
  ".jsx": "javascript",
  ".py": "python",
  ".go": "go",
  ".rs": "rust",
  ".java": "java",
  ".rb": "ruby",
  ".c": "c",
  ".h": "c",
  ".json": "json",
  ".md": "markdown",
  ".toml": "toml",
};

export function languageOf(file: string): string {
  const base = path.posix.basename(file);
  if (base === "Dockerfile") return "dockerfile";
  if (base === "go.mod") return "go-module";
  return LANGUAGES[path.posix.extname(file).toLowerCase()] ?? "text";
}

/** Every regular file under root (posix, relative), skipping node_modules and dot-directories. */
export function listFiles(root: string, filter: (rel: string) => boolean = () => true): SourceFile[] {
  const out: SourceFile[] = [];
  const walk = (rel: string) => {
    for (const entry of readdirSync(path.join(root, rel), { withFileTypes: true })) {
      const child = rel ? `${rel}/${entry.name}` : entry.name;
      if (entry.isDirectory()) {
        if (entry.name !== "node_modules" && !entry.name.startsWith(".")) walk(child);
      } else if (entry.isFile() && filter(child)) out.push({ path: child, language: languageOf(child) });
    }
  };
  walk("");
  return out.sort((a, b) => a.path.localeCompare(b.path));
}

const ALPHABETS: Record<string, string> = {
  an: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789",
  UD: "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789",
  d: "0123456789",
  b64: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789/+",
  us: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-",
  sym: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789!#%",
};

/** `@@prefix|length|alphabet@@` → prefix + random characters (key-shaped values are never stored). */
export function expandGenerated(text: string): string {
  return text.replace(/@@([^|@]*)\|(\d+)\|(\w+)@@/g, (_, prefix: string, length: string, alphabet: string) => {
    const chars = ALPHABETS[alphabet] ?? ALPHABETS.an!;
    const bytes = randomBytes(Number(length));
    return prefix + Array.from(bytes, (b) => chars[b % chars.length]).join("");
  });
}

/** Copies a fixture directory into a fresh temp dir; returns its path and a cleanup. */
export function materializeFixture(
  fixtureDir: string,
  into = "",
  prefix = "argus-fixture-",
): { root: string; cleanup: () => void } {
  const root = mkdtempSync(path.join(os.tmpdir(), prefix));
  const target = path.join(root, into);
  cpSync(fixtureDir, target, { recursive: true });
  for (const file of listFiles(target)) {
    const abs = path.join(target, file.path);
    if (file.path.endsWith(".README.md") || path.posix.basename(file.path) === "README.md") {
      rmSync(abs);
      continue;
    }
    const text = readFileSync(abs, "utf8");
    if (text.includes("@@")) writeFileSync(abs, expandGenerated(text));
    if (abs.endsWith(".fixture")) renameSync(abs, abs.slice(0, -".fixture".length));
  }
  return { root, cleanup: () => rmSync(root, { recursive: true, force: true }) };
}
