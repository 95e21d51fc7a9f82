/**
 * A remark plugin: each canonical @mention token (`@[Name](mention:<id>)`, server/shared/mentions.ts)
 * becomes a name chip — a span, never a link. The token is recognised on the source text, with the
 * same parser as the server's, so the chip shows the name exactly as written. Anything else that
 * points at `mention:` (no `@`, a reference definition, an autolink) stays a link whose target the
 * renderer drops (safeLinkUrl), i.e. plain text.
 */
import type { Link, Parent, PhrasingContent, Root, Text } from "mdast";
import { findMentions, MENTION_SCHEME } from "@/server/shared/mentions.ts";

const CHIP_CLASS =
  "rounded bg-brand-50 px-1 font-medium text-brand-800 dark:bg-brand-900/40 dark:text-brand-100 whitespace-nowrap";

/** The chip for a link node that is a whole mention token in `source`, or null. */
function chipFor(link: Link, prev: PhrasingContent | undefined, source: string): Text | null {
  if (!link.url.startsWith(MENTION_SCHEME) || prev?.type !== "text" || !prev.value.endsWith("@")) return null;
  const start = link.position?.start.offset;
  const end = link.position?.end.offset;
  if (start === undefined || end === undefined || source[start - 1] !== "@") return null;
  const [token] = findMentions(source.slice(start - 1, end));
  if (!token || token.start !== 0 || token.end !== end - start + 1) return null;
  return {
    type: "text",
    value: `@${token.name}`,
    data: {
      hName: "span",
      hProperties: { className: CHIP_CLASS.split(" "), dataMention: token.userId, title: `Mentioned: ${token.name}` },
    },
  };
}

function walk(parent: Parent, source: string): void {
  const next: Parent["children"] = [];
  for (const child of parent.children) {
    const prev = next[next.length - 1] as PhrasingContent | undefined;
    const chip = child.type === "link" ? chipFor(child, prev, source) : null;
    if (chip && prev?.type === "text") {
      // The "@" belongs to the chip now.
      prev.value = prev.value.slice(0, -1);
      if (!prev.value) next.pop();
      next.push(chip);
      continue;
    }
    if ("children" in child) walk(child, source);
    next.push(child);
  }
  parent.children = next;
}

export function remarkMentionChips() {
  return (tree: Root, file: { value?: unknown }) => {
    const source = typeof file.value === "string" ? file.value : String(file.value ?? "");
    walk(tree, source);
  };
}
