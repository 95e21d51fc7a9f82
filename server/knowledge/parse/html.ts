/**
 * HTML → readable text with htmlparser2 (a maintained, forgiving streaming parser: broken markup
 * still yields its text). Scripts, styles and other non-content elements are dropped; block
 * elements start new lines, table cells are separated by two spaces, whitespace collapses as a
 * browser would except inside <pre>. Entities are decoded. The title is <title>, else the first <h1>.
 */
import { Parser } from "htmlparser2";

/** Elements whose content is never text a reader sees. */
const DROPPED = new Set([
  "script",
  "style",
  "noscript",
  "template",
  "svg",
  "canvas",
  "iframe",
  "object",
  "embed",
  "head",
  "select",
  "button",
]);
/** Elements that stand apart as paragraphs (a blank line around them). */
const PARAGRAPH = new Set([
  "address",
  "article",
  "aside",
  "blockquote",
  "details",
  "dl",
  "fieldset",
  "figure",
  "footer",
  "form",
  "h1",
  "h2",
  "h3",
  "h4",
  "h5",
  "h6",
  "header",
  "hr",
  "main",
  "nav",
  "ol",
  "p",
  "pre",
  "section",
  "table",
  "ul",
]);
/** Elements that start a new line of their own. */
const LINE = new Set([
  "body",
  "caption",
  "dd",
  "div",
  "dt",
  "figcaption",
  "html",
  "li",
  "summary",
  "tbody",
  "tfoot",
  "thead",
  "tr",
]);
const CELL = new Set(["td", "th"]);

export function htmlToText(html: string): { text: string; title: string | null } {
  let out = "";
  /** Line break owed before the next text: 0 none, 1 new line, 2 blank line. */
  let owed = 0;
  let dropped = 0;
  let pre = 0;
  let inTitle = false;
  let titleText = "";
  let h1Depth = 0;
  let h1Text = "";
  let firstH1: string | null = null;

  const owe = (n: number) => (owed = Math.max(owed, n));
  const atLineStart = () => out === "" || out.endsWith("\n");
  function append(text: string) {
    if (owed && out) out = out.replace(/[ \t]+$/, "") + "\n".repeat(owed);
    owed = 0;
    out += text;
  }

  const parser = new Parser(
    {
      onopentag(name) {
        if (name === "title") inTitle = true;
        if (DROPPED.has(name)) dropped++;
        if (dropped) return;
        if (name === "pre") pre++;
        if (name === "h1" && firstH1 === null) h1Depth++;
        if (PARAGRAPH.has(name)) owe(2);
        else if (LINE.has(name)) owe(1);
        else if (name === "br") {
          out = out.replace(/[ \t]+$/, "");
          append("\n");
        } else if (CELL.has(name) && !owed && !atLineStart()) append("  ");
        else if (name === "img" && !atLineStart()) append(" ");
      },
      ontext(raw) {
        if (inTitle) titleText += raw;
        if (dropped) return;
        if (h1Depth) h1Text += raw;
        if (pre) return append(raw);
        let text = raw.replace(/[ \t\n\r\f]+/g, " ");
        if (owed || atLineStart() || out.endsWith(" ")) text = text.replace(/^ /, "");
        if (text === "" || (text === " " && (owed || atLineStart()))) return;
        append(text);
      },
      onclosetag(name) {
        if (name === "title") inTitle = false;
        if (DROPPED.has(name)) {
          dropped = Math.max(0, dropped - 1);
          return;
        }
        if (dropped) return;
        if (name === "pre") pre = Math.max(0, pre - 1);
        if (name === "h1" && h1Depth) {
          h1Depth--;
          if (!h1Depth) firstH1 = collapse(h1Text) || null;
        }
        if (PARAGRAPH.has(name)) owe(2);
        else if (LINE.has(name)) owe(1);
      },
    },
    { decodeEntities: true, lowerCaseTags: true, recognizeSelfClosing: true },
  );
  parser.write(html);
  parser.end();
  return {
    text: out
      .replace(/[ \t]+$/gm, "")
      .replace(/\n{3,}/g, "\n\n")
      .trim(),
    title: collapse(titleText) || firstH1,
  };
}

/** Tags inside Markdown text (inline HTML) removed, entities decoded; comments dropped. */
export function stripInlineHtml(text: string): string {
  if (!/[<&]/.test(text)) return text;
  // Keep the surrounding spaces: the caller stitches pieces of one line back together.
  const [, lead, body, trail] = /^(\s*)([\s\S]*?)(\s*)$/.exec(text)!;
  return lead + htmlToText(body!).text.replace(/\n+/g, " ").trim() + trail;
}

function collapse(s: string): string {
  return s.replace(/\s+/g, " ").trim();
}
