/**
 * The taint suites written for Argus (never copied from a public benchmark): small handlers with a
 * planted flaw or a safe look-alike (sanitised, dead, constant, overwritten), grouped in `.cases`
 * files per weakness. A file's lines before the first case are its header (imports), put at the top
 * of every case. Markers at the end of a line:
 *
 *   `vuln: <weakness>`  the flaw is reported on this line (a true positive, or a false negative)
 *   `safe: <weakness>`  a look-alike that must stay silent (documents which weakness it mimics)
 *
 * A case can hold several files (`---- file: lib/db.js`); the header goes to its first file only.
 * Each case becomes its own file(s) under `<lang>/<suite>/<case>/`, so file-level scores are per case.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { SourceFile } from "../../../symbols/types.ts";
import type { Weakness } from "../values.ts";

export const SUITES_DIR = path.dirname(fileURLToPath(import.meta.url));

export type SuiteLanguage = "javascript" | "python";

export interface CaseFile {
  path: string;
  text: string;
  /** 1-based lines that must be reported, with their weakness. */
  vulnerable: { line: number; weakness: Weakness }[];
}

export interface SuiteCase {
  language: SuiteLanguage;
  suite: string;
  name: string;
  /** The weakness the case is about (from its markers). */
  weakness: Weakness;
  vulnerable: boolean;
  files: CaseFile[];
}

const MARKER = /(?:\/\/|#)\s*(vuln|safe):\s*([\w-]+)/;
const CASE = /^\s*(?:\/\/|#)\s*-{4}\s*case:\s*(\S+)/;
const FILE = /^\s*(?:\/\/|#)\s*-{4}\s*file:\s*(\S+)/;

export function loadSuites(dir = SUITES_DIR): SuiteCase[] {
  const out: SuiteCase[] = [];
  for (const language of ["javascript", "python"] as const) {
    const langDir = path.join(dir, language);
    for (const entry of readdirSync(langDir).sort()) {
      if (!entry.endsWith(".cases")) continue;
      out.push(
        ...parseSuite(language, entry.replace(/\.\w+\.cases$/, ""), readFileSync(path.join(langDir, entry), "utf8")),
      );
    }
  }
  return out;
}

export function parseSuite(language: SuiteLanguage, suite: string, text: string): SuiteCase[] {
  const ext =
    language === "python" ? ".py" : suite.startsWith("tsx-") ? ".tsx" : suite.startsWith("ts-") ? ".ts" : ".js";
  const lines = text.split("\n");
  const header: string[] = [];
  let i = 0;
  while (i < lines.length && !CASE.test(lines[i]!)) header.push(lines[i++]!);
  const cases: SuiteCase[] = [];
  while (i < lines.length) {
    const name = CASE.exec(lines[i++]!)![1]!;
    const body: string[] = [];
    while (i < lines.length && !CASE.test(lines[i]!)) body.push(lines[i++]!);
    const files: { path: string; lines: string[] }[] = [{ path: `${name}${ext}`, lines: [...header] }];
    for (const l of body) {
      const f = FILE.exec(l);
      if (f) files.push({ path: f[1]!, lines: [] });
      else files[files.length - 1]!.lines.push(l);
    }
    let weakness: Weakness | null = null;
    let vulnerable = false;
    const caseFiles: CaseFile[] = files.map((f) => {
      const vuln: CaseFile["vulnerable"] = [];
      f.lines.forEach((l, n) => {
        const m = MARKER.exec(l);
        if (!m) return;
        weakness ??= m[2] as Weakness;
        if (m[1] === "vuln") {
          vulnerable = true;
          weakness = m[2] as Weakness;
          vuln.push({ line: n + 1, weakness: m[2] as Weakness });
        }
      });
      return { path: `${language}/${suite}/${name}/${f.path}`, text: f.lines.join("\n"), vulnerable: vuln };
    });
    if (!weakness) throw new Error(`case ${suite}/${name} has no vuln: or safe: marker`);
    cases.push({ language, suite, name, weakness, vulnerable, files: caseFiles });
  }
  return cases;
}

/** Writes every case into a fresh directory; returns it, the file list and a cleanup. */
export function materialize(cases: SuiteCase[]): { root: string; files: SourceFile[]; cleanup: () => void } {
  const root = mkdtempSync(path.join(os.tmpdir(), "argus-taint-suite-"));
  const files: SourceFile[] = [];
  for (const c of cases)
    for (const f of c.files) {
      const abs = path.join(root, f.path);
      mkdirSync(path.dirname(abs), { recursive: true });
      writeFileSync(abs, f.text);
      files.push({
        path: f.path,
        language: f.path.endsWith(".py")
          ? "python"
          : f.path.endsWith(".tsx")
            ? "tsx"
            : f.path.endsWith(".ts")
              ? "typescript"
              : "javascript",
      });
    }
  return { root, files, cleanup: () => rmSync(root, { recursive: true, force: true }) };
}
