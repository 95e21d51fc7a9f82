/**
 * A remark plugin: `path:line` and `path:line-line` in the text of a Markdown document become links
 * (server/shared/code-refs.ts finds them). Only plain text is touched — code spans, code blocks and
 * existing links keep their text as written.
 */
import type { Link, Parent, PhrasingContent, Root, Text } from "mdast";
import { findCodeRefs } from "@/server/shared/code-refs.ts";

export type CodeLink = (path: string, line: number, endLine?: number) => string;

function split(node: Text, href: CodeLink): PhrasingContent[] {
  const refs = findCodeRefs(node.value);
  if (!refs.length) return [node];
  const out: PhrasingContent[] = [];
  let at = 0;
  for (const r of refs) {
    if (r.start > at) out.push({ type: "text", value: node.value.slice(at, r.start) });
    const link: Link = {
      type: "link",
      url: href(r.path, r.line, r.endLine),
      title: null,
      children: [{ type: "text", value: node.value.slice(r.start, r.end) }],
    };
    out.push(link);
    at = r.end;
  }
  if (at < node.value.length) out.push({ type: "text", value: node.value.slice(at) });
  return out;
}

function walk(parent: Parent, href: CodeLink): void {
  if (parent.type === "link" || parent.type === "linkReference") return;
  const next: Parent["children"] = [];
  for (const child of parent.children) {
    if (child.type === "text") next.push(...split(child, href));
    else {
      if ("children" in child) walk(child, href);
      next.push(child);
    }
  }
  parent.children = next;
}

export function remarkCodeRefLinks(href: CodeLink) {
  return () => (tree: Root) => walk(tree, href);
}
