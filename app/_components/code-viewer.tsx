"use client";
/** A file's code with line numbers and syntax highlighting (highlight.js); the target line (or line range, with `endLine`) is marked and scrolled to. */
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
  linkFor,
}: {
  content: string;
  language: string;
  line?: number;
  endLine?: number;
  linkFor: (line: number) => string;
}) {
  const last = line !== undefined && endLine !== undefined && endLine > line ? endLine : line;
  const marked = (n: number) => line !== undefined && n >= line && n <= last!;
  const target = useRef<HTMLTableRowElement>(null);
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
    void target.current?.scrollIntoView({ block: "center" });
  }, [line, content]);

  return (
    <div className="overflow-auto rounded-md border border-zinc-200 bg-white text-[13px] leading-5 dark:border-zinc-800 dark:bg-zinc-50">
      <table className="w-full border-collapse font-mono text-zinc-900">
        <tbody>
          {lines.map((html, i) => {
            const n = i + 1;
            return (
              <tr
                key={n}
                id={`L${n}`}
                ref={n === line ? target : undefined}
                data-marked={marked(n) || undefined}
                className={cx(marked(n) && "bg-amber-100")}
              >
                <td className="w-12 select-none border-r border-zinc-200 pr-2 text-right align-top text-zinc-400">
                  <a href={linkFor(n)} className="hover:text-zinc-700">
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
