/**
 * Rules on plain text, for every file whatever its language (Dockerfiles, shell, YAML, .properties
 * included): settings that switch TLS verification off process-wide.
 */
import type { Finding } from "../types.ts";
import { finding, lineOf, matchAll, type RuleContext } from "./context.ts";

const RULES: { re: RegExp; message: string }[] = [
  {
    re: /\bNODE_TLS_REJECT_UNAUTHORIZED\b["']?\s*(?:=|:|,)\s*["']?0\b/g,
    message: "NODE_TLS_REJECT_UNAUTHORIZED=0 disables TLS verification for the whole Node process",
  },
  {
    re: /\bPYTHONHTTPSVERIFY\b["']?\s*(?:=|:)\s*["']?0\b/g,
    message: "PYTHONHTTPSVERIFY=0 disables HTTPS certificate verification for the whole Python process",
  },
  {
    re: /\bGIT_SSL_NO_VERIFY\b["']?\s*(?:=|:)\s*["']?(?:1|true)\b/gi,
    message: "GIT_SSL_NO_VERIFY disables TLS verification for git",
  },
];

/** A line that is only a comment in the common syntaxes (#, //, --, ;, *). */
const COMMENT_LINE = /^\s*(?:#|\/\/|--|;|\*|\/\*)/;

export function runTextRules(ctx: RuleContext): Finding[] {
  const out: Finding[] = [];
  for (const { re, message } of RULES) {
    for (const m of matchAll(ctx.source, re)) {
      const lineStart = ctx.source.lastIndexOf("\n", m.index) + 1;
      if (COMMENT_LINE.test(ctx.source.slice(lineStart, m.index))) continue;
      const line = lineOf(ctx, m.index);
      const f = finding(ctx, "tls/verification-disabled", "high", 0.9, line, line, message);
      if (f) out.push(f);
    }
  }
  return out;
}
