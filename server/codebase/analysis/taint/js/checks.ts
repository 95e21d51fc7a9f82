/**
 * Checks the JS call table shares: Mongo filters (operators and `$where`), templates that print raw,
 * and `replace()` calls that remove everything outside a safe character class.
 */
import type { Node } from "../../../treesitter.ts";
import { clean, deepFlows, EMPTY, join, joinAll, stringify, type Val } from "../values.ts";
import type { JsHost } from "./host.ts";
import type { JsCall } from "./model.ts";

/** A Mongo filter: `$where` with input is code; an input value that may be an object injects operators. */
export function nosqlCheck(a: JsHost, filter: Val, node: Node, site: JsCall): void {
  if (filter.fields) {
    for (const [k, v] of filter.fields) {
      if (k === "$where" || k === "$function" || k === "$accumulator")
        a.sink("nosql", asOperator(v), node, `${site.callee}() $where`);
      else if (k === "$eq")
        continue; // { $eq: x } compares x as a value, even an object
      else if (k.startsWith("$")) nosqlCheck(a, v, node, site);
      else if (v.fields) nosqlCheck(a, v, node, site);
      else a.sink("nosql", v, node, `${site.callee}() filter`, false);
    }
    return;
  }
  a.sink("nosql", filter, node, `${site.callee}() filter`, false);
}

/**
 * Does a template print values unescaped? "config" when an option turns escaping off for the whole
 * template (also reported as a setting), true for raw-output tags in a constant template
 * (`<%-`, `{{{`, `{{&`, `|safe`, `!{`), false otherwise (the engines escape by default).
 */
export function rawOutput(name: string, tpl: Val, opts: Val | undefined): boolean | "config" {
  if (opts?.fields?.get("noEscape")?.c === true || opts?.fields?.get("autoescape")?.c === false) return "config";
  const text = tpl.hasConst ? String(tpl.c) : "";
  if (/^ejs\./.test(name)) return /<%-/.test(text);
  if (/^pug|^jade/.test(name)) return /!\{|!=/.test(text);
  if (/nunjucks|twig|liquid/.test(name)) return /\|\s*safe\b|autoescape\s+false/.test(text);
  return /\{\{\{|\{\{\s*&/.test(text);
}

/** What a template renders from its data: HTML-escaped unless it prints raw. */
export function rendered(raw: boolean, data: Val[]): Val {
  const v = stringify(joinAll(data.map((d) => ({ flows: deepFlows(d) }))));
  return raw ? v : clean(v, ["xss"]);
}

/** Data used as Mongo code or operators counts whether or not it was an object. */
export function asOperator(v: Val): Val {
  return { flows: deepFlows(v).map((f) => ({ ...f, structured: true })) };
}

/** `s.replace(/[^\w-]/g, "")` keeps only safe characters; `s.replace(/</g, "&lt;")` escapes markup. */
export function replaceModel(site: JsCall, recv: Val): Val {
  const pattern = site.args[0]?.kind === "regex" ? (site.args[0].meta?.pattern ?? "") : null;
  const replacement = site.args[1];
  const base = stringify(join(recv, replacement?.fn ? EMPTY : (replacement ?? EMPTY)));
  if (pattern === null) return base;
  if (/^\[\^[\w\\\-. ]*\][+*]?$/.test(pattern) && !/\.\./.test(pattern) && replacement?.hasConst) {
    const keepsDots = /\\\.|\./.test(pattern.slice(2, -1));
    const keepsSlash = /\//.test(pattern);
    return clean(base, keepsDots || keepsSlash ? ["xss", "sql", "command", "nosql", "ldap", "xpath", "code"] : "all");
  }
  if (/[<>]/.test(pattern) && replacement?.hasConst && !/[<>]/.test(String(replacement.c))) return clean(base, ["xss"]);
  return base;
}
