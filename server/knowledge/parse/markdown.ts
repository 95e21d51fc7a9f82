/**
 * Markdown → the text a reader sees. Structure that carries meaning stays (headings and list items
 * keep their own lines, code keeps its content, table cells their text); syntax that is noise for
 * search goes (#, >, list bullets, emphasis markers, link targets, image URLs, HTML tags, front
 * matter, reference definitions). The title is front matter's `title:`, else the first heading.
 * Line-based on purpose: a full CommonMark parser would buy exactness nobody searching can see.
 */
import { stripInlineHtml } from "./html.ts";

const FENCE = /^ {0,3}(`{3,}|~{3,})/;
const ATX_HEADING = /^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$/;
const SETEXT_UNDERLINE = /^ {0,3}(=+|-+)[ \t]*$/;
const RULE = /^ {0,3}([-*_])(?:[ \t]*\1){2,}[ \t]*$/;
const TABLE_SEPARATOR = /^ {0,3}\|?[ \t]*:?-+:?[ \t]*(\|[ \t]*:?-+:?[ \t]*)*\|?[ \t]*$/;
const REFERENCE_DEFINITION = /^ {0,3}\[[^\]]+\]:[ \t]*\S+/;

export function markdownToText(source: string): { text: string; title: string | null } {
  const lines = source.replace(/\r\n?/g, "\n").split("\n");
  let title: string | null = null;
  let i = 0;

  // YAML front matter: only at the very top, between two `---` lines.
  if (lines[0]?.trim() === "---") {
    const end = lines.findIndex((l, j) => j > 0 && (l.trim() === "---" || l.trim() === "..."));
    if (end > 0) {
      for (const l of lines.slice(1, end)) {
        const m = /^title:\s*(.+?)\s*$/.exec(l);
        if (m) title = m[1]!.replace(/^(['"])(.*)\1$/, "$2");
      }
      i = end + 1;
    }
  }

  const out: string[] = [];
  let fence: string | null = null;
  for (; i < lines.length; i++) {
    const line = lines[i]!;
    if (fence) {
      if (line.trimStart().startsWith(fence)) fence = null;
      else out.push(line);
      continue;
    }
    const open = FENCE.exec(line);
    if (open) {
      fence = open[1]!;
      continue;
    }
    const heading = ATX_HEADING.exec(line);
    if (heading) {
      const text = inline(heading[2] ?? "");
      title ??= text || null;
      out.push(text);
      continue;
    }
    // Under a paragraph line, `===` or `---` makes it a (setext) heading; elsewhere `---` is a rule.
    if (SETEXT_UNDERLINE.test(line) && out.length > 0 && out[out.length - 1]!.trim() && lines[i - 1]!.trim()) {
      title ??= out[out.length - 1]!.trim();
      continue;
    }
    if (RULE.test(line) || REFERENCE_DEFINITION.test(line)) {
      out.push("");
      continue;
    }
    if (line.includes("|") && TABLE_SEPARATOR.test(line) && line.includes("-")) continue;
    out.push(inline(blockPrefixes(line)));
  }
  return { text: out.join("\n"), title };
}

/** Blockquote markers, list bullets / numbers and task boxes; table pipes become cell gaps. */
function blockPrefixes(line: string): string {
  let l = line.replace(/^ {0,3}(> ?)+/, "");
  l = l.replace(/^(\s*)(?:[-*+]|\d{1,9}[.)])[ \t]+(?:\[[ xX]\][ \t]+)?/, "$1");
  if (/^\s*\|.*\|\s*$/.test(l))
    l = l
      .trim()
      .slice(1, -1)
      .split(/(?<!\\)\|/)
      .map((c) => c.trim())
      .join("  ");
  return l;
}

/** Inline syntax: images → alt text, links → their text, code spans (kept verbatim), emphasis,
 * HTML tags and entities, backslash escapes. */
function inline(text: string): string {
  return text
    .split(/(`+)(.+?)\1/)
    .map((part, i) => (i % 3 === 2 ? part : i % 3 === 1 ? "" : prose(part)))
    .join("");
}

function prose(text: string): string {
  return stripInlineHtml(text.replace(/<((?:https?|mailto):[^>\s]+)>/g, "$1"))
    .replace(/!\[([^\]]*)\]\([^)]*\)/g, "$1")
    .replace(/!\[([^\]]*)\]\[[^\]]*\]/g, "$1")
    .replace(/\[\^[^\]]+\]/g, "")
    .replace(/\[([^\]]+)\]\([^)]*\)/g, "$1")
    .replace(/\[([^\]]+)\]\[[^\]]*\]/g, "$1")
    .replace(/(\*\*|__)(?=\S)(.+?)(?<=\S)\1/g, "$2")
    .replace(/(^|[^\p{L}\p{N}_*])([*_])(?=\S)(.+?)(?<=\S)\2(?![\p{L}\p{N}_])/gu, "$1$3")
    .replace(/~~(?=\S)(.+?)(?<=\S)~~/g, "$1")
    .replace(/\\([\\`*_{}[\]()#+\-.!|>~])/g, "$1");
}
