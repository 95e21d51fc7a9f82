"use client";
/**
 * A file's code with line numbers and syntax highlighting (highlight.js); the target line (or line
 * range, with `endLine`, or several ranges) is marked and scrolled to — the page to it, or with
 * `boxClassName` (a bounded height) only the box, so a pane that follows the agent does not move the page.
 */
import hljs from "highlight.js/lib/common";
import "highlight.js/styles/github.css";
import { useEffect, useMemo, useRef } from "react";
import { cx } from "./ui.tsx";

const hljsLanguage: Record<string, string> = {
  typescript: "typescript",
  tsx: "typescript",
  javascript: "javascript",
  python: "python",
  go: "go",
  rust: "rust",
  java: "java",
  c: "c",
  cpp: "cpp",
  csharp: "csharp",
  ruby: "ruby",
  php: "php",
  kotlin: "kotlin",
  swift: "swift",
  shell: "bash",
  sql: "sql",
  yaml: "yaml",
  json: "json",
  markdown: "markdown",
  html: "xml",
  css: "css",
};

export function CodeViewer({
  content,
  language,
  line,
  endLine,
  ranges,
  boxClassName,
  linkFor,
}: {
  content: string;
  language: string;
  line?: number;
  endLine?: number;
  /** Lines to mark as inclusive [first, last] ranges (instead of line…endLine). */
  ranges?: readonly (readonly [number, number])[];
  /** Classes of the scrolling box (e.g. a max height): the viewer then scrolls inside it only. */
  boxClassName?: string;
  linkFor: (line: number) => string;
}) {
  const last = line !== undefined && endLine !== undefined && endLine > line ? endLine : line;
  const marked = (n: number) =>
    ranges ? ranges.some(([a, b]) => n >= a && n <= b) : line !== undefined && n >= line && n <= last!;
  const target = useRef<HTMLTableRowElement>(null);
  const box = useRef<HTMLDivElement>(null);
  // Highlight line by line so numbering and anchors stay aligned (multi-line tokens lose a little colour).
  const lines = useMemo(() => {
    const lang = hljsLanguage[language];
    return content
      .split("\n")
      .map((text) =>
        lang && hljs.getLanguage(lang)
          ? hljs.highlight(text, { language: lang, ignoreIllegals: true }).value
          : escapeHtml(text),
      );
  }, [content, language]);
  useEffect(() => {
    // A block body on purpose: Chromium's scrollIntoView now returns a Promise, and an effect that
    // returns a non-function crashes React on unmount ("destroy is not a function").
    const row = target.current;
    if (!row) return;
    const el = box.current;
    if (boxClassName && el)
      el.scrollTop += row.getBoundingClientRect().top - el.getBoundingClientRect().top - el.clientHeight / 3;
    else void row.scrollIntoView({ block: "center" });
  }, [line, content, boxClassName]);

  return (
    <div
      ref={box}
      className={cx(
        "overflow-auto rounded-md border border-zinc-200 bg-white text-[13px] leading-5 dark:border-zinc-800 dark:bg-zinc-950",
        boxClassName,
      )}
    >
      <table className="w-full border-collapse font-mono text-zinc-900 dark:text-zinc-100">
        <tbody>
          {lines.map((html, i) => {
            const n = i + 1;
            return (
              <tr
                key={n}
                id={`L${n}`}
                ref={n === line ? target : undefined}
                data-marked={marked(n) || undefined}
                className={cx(marked(n) && "bg-amber-100 dark:bg-amber-500/20")}
              >
                <td className="w-12 select-none border-r border-zinc-200 pr-2 text-right align-top text-zinc-400 dark:border-zinc-800 dark:text-zinc-500">
                  <a href={linkFor(n)} className="hover:text-zinc-700 dark:hover:text-zinc-200">
                    {n}
                  </a>
                </td>
                <td className="whitespace-pre pl-3" dangerouslySetInnerHTML={{ __html: html || " " }} />
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}

function escapeHtml(s: string): string {
  return s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}
