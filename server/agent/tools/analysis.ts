/** get_file_summary and get_static_analysis: what Argus already knows about a file or the project. */
import { z } from "zod";
import { detectLanguage } from "../../codebase/languages.ts";
import { DomainError } from "../../errors.ts";
import { SEVERITIES } from "../../shared/findings.ts";
import type { StaticFinding, ToolEnv } from "./env.ts";
import { clip, cutLine, defineTool, humanBytes, ok, plural, splitLines } from "./format.ts";
import {
  DEFAULT_STATIC_RESULTS,
  MAX_STATIC_CHARS,
  MAX_STATIC_RESULTS,
  MAX_SUMMARY_CHARS,
  MAX_SUMMARY_FINDINGS,
  MAX_SUMMARY_OUTLINE,
  MAX_READ_FILE_BYTES,
} from "./limits.ts";

/** The report's severity order; a pre-pass severity outside it ranks last. */
const rank = (s: string) => {
  const i = (SEVERITIES as readonly string[]).indexOf(s);
  return i < 0 ? SEVERITIES.length : i;
};

export const fileSummaryInput = z.object({
  path: z.string().max(4096).describe("File path relative to the project root."),
});
export const staticAnalysisInput = z.object({
  file: z.string().max(4096).optional().describe('Only findings in this file, or under this folder ("src/api").'),
  min_severity: z
    .enum(SEVERITIES)
    .optional()
    .describe("Only findings at or above this severity (critical > high > medium > low > info)."),
  limit: z.coerce
    .number()
    .int()
    .min(1)
    .max(MAX_STATIC_RESULTS)
    .default(DEFAULT_STATIC_RESULTS)
    .describe(`Findings to return (default ${DEFAULT_STATIC_RESULTS}, at most ${MAX_STATIC_RESULTS}).`),
});

function findingLine(f: StaticFinding, withPath: boolean): string {
  const span = f.endLine !== f.startLine ? `${f.startLine}-${f.endLine}` : `${f.startLine}`;
  const where = withPath ? `${f.file}:${span}` : `${f.endLine !== f.startLine ? "lines" : "line"} ${span}`;
  return `[${f.severity}] ${where} ${f.tool} ${f.ruleId} (confidence ${f.confidence.toFixed(2)}): ${cutLine(f.message.replace(/\s+/g, " "), 400)}`;
}

const bySeverityThenPlace = (a: StaticFinding, b: StaticFinding) =>
  rank(a.severity) - rank(b.severity) || (a.file < b.file ? -1 : a.file > b.file ? 1 : 0) || a.startLine - b.startLine;

function countBySeverity(rows: StaticFinding[]): string {
  const counts = new Map<string, number>();
  for (const f of rows) counts.set(f.severity, (counts.get(f.severity) ?? 0) + 1);
  return [...counts]
    .sort((a, b) => rank(a[0]) - rank(b[0]))
    .map(([s, n]) => `${n} ${s}`)
    .join(", ");
}

export function fileSummaryTool(env: ToolEnv) {
  return defineTool({
    name: "get_file_summary",
    description:
      "Summarise one file without reading it all: language, size, line count, outline of its symbols, what it imports and who imports it, and its static-analysis findings.",
    input: fileSummaryInput,
    async run(args) {
      const file = env.sandbox.readFile(args.path, { maxBytes: MAX_READ_FILE_BYTES });
      const lines = splitLines(file.content).length;
      const out = [
        `${file.path}`,
        `language: ${detectLanguage(file.path, file.content.slice(0, 256))} · ${humanBytes(file.size)} · ${file.truncated ? "at least " : ""}${plural(lines, "line")}`,
      ];

      try {
        env.withSymbols((ix) => {
          const indexed = ix.files().find((f) => f.path === file.path);
          if (indexed && indexed.status !== "parsed")
            out.push(`symbol index: ${indexed.status}${indexed.note ? ` (${indexed.note})` : ""}`);
          if (indexed?.parseErrors) out.push("symbol index: the file has syntax errors; its outline is best-effort");
          const outline = ix.listSymbols({ file: file.path, limit: MAX_SUMMARY_OUTLINE + 1 });
          out.push(
            `Outline (${outline.length > MAX_SUMMARY_OUTLINE ? `first ${MAX_SUMMARY_OUTLINE}` : outline.length}):`,
          );
          for (const s of outline.slice(0, MAX_SUMMARY_OUTLINE)) {
            out.push(
              `  ${s.startLine}-${s.endLine} ${s.kind} ${s.container ? `${s.container}.` : ""}${s.name}${s.exported ? " (exported)" : ""}`,
            );
          }
          if (outline.length === 0) out.push("  (no symbols)");
          const imports = ix.importsOf(file.path);
          if (imports.length) {
            out.push(`Imports (${imports.length}):`);
            for (const i of imports.slice(0, 50)) out.push(`  ${i.line}: ${i.specifier} → ${i.target ?? i.targetKind}`);
            if (imports.length > 50) out.push(`  … ${imports.length - 50} more`);
          }
          const importers = [...new Set(ix.importersOf(file.path).map((i) => i.file))].filter(
            (p) => !env.sandbox.matcher.ignores(p),
          );
          out.push(`Imported by (${importers.length}):${importers.length ? "" : " no file in the project"}`);
          for (const p of importers.slice(0, 50)) out.push(`  ${p}`);
          if (importers.length > 50) out.push(`  … ${importers.length - 50} more`);
        });
      } catch (err) {
        if (!(err instanceof DomainError)) throw err;
        out.push(`Outline: not available (${err.message.split(".")[0]}).`);
      }

      const findings = (await env.staticFindings()).filter((f) => f.file === file.path).sort(bySeverityThenPlace);
      out.push(
        `Static findings (${findings.length}${findings.length ? `: ${countBySeverity(findings)}` : ""}):${findings.length ? "" : " none"}`,
      );
      for (const f of findings.slice(0, MAX_SUMMARY_FINDINGS)) out.push(`  ${findingLine(f, false)}`);
      if (findings.length > MAX_SUMMARY_FINDINGS)
        out.push(`  … ${findings.length - MAX_SUMMARY_FINDINGS} more: get_static_analysis with file "${file.path}"`);
      return ok(
        clip(
          out.join("\n"),
          MAX_SUMMARY_CHARS,
          () => "[Summary cut at the size limit: use list_symbols / get_static_analysis with this file for the rest.]",
        ),
      );
    },
  });
}

export function staticAnalysisTool(env: ToolEnv) {
  return defineTool({
    name: "get_static_analysis",
    description:
      "Findings of the static pre-pass (Argus rules, ESLint, …): severity, file, lines, rule and message, most severe first. " +
      "Filter by file or folder and by minimum severity. Treat them as leads to verify, not as conclusions.",
    input: staticAnalysisInput,
    async run(args) {
      let scope: string | undefined;
      if (args.file !== undefined) {
        scope = env.sandbox.normalise(args.file);
        env.sandbox.checkNotIgnored(scope);
      }
      const floor = args.min_severity ? rank(args.min_severity) : SEVERITIES.length;
      const all = await env.staticFindings();
      const rows = all
        .filter((f) => !scope || f.file === scope || f.file.startsWith(`${scope}/`))
        .filter((f) => rank(f.severity) <= floor)
        .filter((f) => !env.sandbox.matcher.ignores(f.file))
        .sort(bySeverityThenPlace);
      const filter = [scope && `in ${scope}`, args.min_severity && `at or above ${args.min_severity}`]
        .filter(Boolean)
        .join(" ");
      if (rows.length === 0)
        return ok(
          `No static findings${filter ? ` ${filter}` : ""} (${plural(all.length, "finding")} in the whole snapshot).`,
        );
      const shown = rows.slice(0, args.limit);
      const out = [
        `${plural(rows.length, "static finding")}${filter ? ` ${filter}` : ""} (${countBySeverity(rows)}):`,
        ...shown.map((f) => findingLine(f, true)),
      ];
      if (rows.length > shown.length)
        out.push(
          `[${rows.length - shown.length} more not shown: narrow with file or min_severity, or raise limit (at most ${MAX_STATIC_RESULTS}).]`,
        );
      return ok(
        clip(
          out.join("\n"),
          MAX_STATIC_CHARS,
          () => "[Output cut at the size limit: narrow with file or min_severity.]",
        ),
      );
    },
  });
}
