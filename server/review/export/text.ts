/** Small text helpers shared by the exports. */

/** A code fence longer than any backtick run inside `text`, so quoted code can never close it early. */
export function fence(text: string, info = ""): string {
  const longest = Math.max(0, ...(text.match(/`+/g) ?? []).map((run) => run.length));
  const ticks = "`".repeat(Math.max(3, longest + 1));
  return `${ticks}${info}\n${text.replace(/\n+$/, "")}\n${ticks}`;
}

/** Untrusted text as one inline code span (a backtick run longer than any inside, so it cannot close early). */
export function codeSpan(text: string): string {
  const one = text.replace(/\s*\n\s*/g, " ").trim();
  const longest = Math.max(0, ...(one.match(/`+/g) ?? []).map((run) => run.length));
  const ticks = "`".repeat(longest + 1);
  const pad = one.startsWith("`") || one.endsWith("`") ? " " : "";
  return `${ticks}${pad}${one}${pad}${ticks}`;
}

/**
 * Untrusted text (model output, file paths) placed in Markdown prose: one line, and no raw HTML —
 * a viewer that renders HTML in Markdown would otherwise run what a model or an uploaded file wrote.
 */
export function inline(text: string): string {
  return escapeHtml(text.replace(/\s*\n\s*/g, " ").trim());
}

/** Multi-line untrusted Markdown (the summary, explanations): kept as Markdown, raw HTML neutralised. */
export function block(text: string): string {
  return escapeHtml(text.trim());
}

export function escapeHtml(text: string): string {
  return text
    .replace(/&(?![a-zA-Z]+;|#\d+;)/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;");
}

/** A table cell: inline text with pipes escaped. */
export function cell(text: string): string {
  return inline(text).replace(/\|/g, "\\|");
}

/** File name extension → a fence info string most Markdown viewers highlight. */
export function fenceLanguage(file: string): string {
  const ext = /\.([a-z0-9]+)$/i.exec(file)?.[1]?.toLowerCase() ?? "";
  const map: Record<string, string> = {
    ts: "ts",
    tsx: "tsx",
    js: "js",
    jsx: "jsx",
    mjs: "js",
    cjs: "js",
    py: "python",
    go: "go",
    rs: "rust",
    java: "java",
    rb: "ruby",
    php: "php",
    kt: "kotlin",
    swift: "swift",
    c: "c",
    h: "c",
    cpp: "cpp",
    cc: "cpp",
    cs: "csharp",
    sh: "bash",
    sql: "sql",
    yml: "yaml",
    yaml: "yaml",
    json: "json",
    html: "html",
    css: "css",
  };
  return map[ext] ?? "";
}

/** "argus-payments-api-1a2b3c4d" — ASCII only, for Content-Disposition and file systems. */
export function exportBaseName(projectName: string, reviewUid: string): string {
  const slug = projectName
    .normalize("NFKD")
    .replace(/[^\w\s-]/g, "")
    .trim()
    .toLowerCase()
    .replace(/[\s_-]+/g, "-")
    .slice(0, 60)
    .replace(/-+$/, "");
  return `argus-${slug || "review"}-${reviewUid.slice(0, 8)}`;
}
