/**
 * Python template engines whose escaping is a setting: Mako (no HTML escaping unless `default_filters`
 * holds `h`, or each `${…}` says `| h`) and Django (escapes unless `{% autoescape off %}`, `|safe` or
 * `Engine(autoescape=False)`). A template remembers whether it prints raw; what it renders from its
 * data keeps its XSS taint only then. Escaping turned off is also a setting finding
 * (`xss/autoescape-off`), whatever the data. Part of the call table in `py/calls.ts`.
 */
import type { Node } from "../../../treesitter.ts";
import type { Modelled } from "../models.ts";
import { clean, deepFlows, joinAll, stringify, type Val } from "../values.ts";
import type { PyHost } from "./host.ts";
import { kwText, type PySite, type PyTable } from "./site.ts";

const r = (result: Val): Modelled => ({ result });
const template = (raw: boolean): Val => ({ flows: [], kind: "py-template", meta: { raw: raw ? "1" : "" } });
const constText = (v: Val): string | null => (v.hasConst ? String(v.c) : null);

/** `default_filters=[…]` as written: absent (null), or whether it holds the HTML escaper. */
function makoFilters(s: PySite): { given: boolean; escapes: boolean } {
  const text = kwText(s, "default_filters");
  return { given: !!text, escapes: /["'](?:h|html_escape|filters\.html_escape)["']/.test(text) };
}

/** A Mako template prints raw unless its filters escape, or every `${…}` in its (constant) text is `| h`. */
function makoRaw(a: PyHost, s: PySite, node: Node, text: string | null): boolean {
  const filters = makoFilters(s);
  if (filters.given && !filters.escapes)
    a.config("autoescape", node, `${s.callee}() with default_filters that do not HTML-escape (no "h")`);
  if (filters.escapes) return false;
  if (text === null) return true;
  const exprs = [...text.matchAll(/\$\{([^}]*)\}/g)].map((m) => m[1]!);
  return exprs.some((e) => !/\|\s*(?:[\w.]+\s*,\s*)*h\b/.test(e));
}

const DJANGO_RAW = /\{%\s*autoescape\s+off\s*%\}|\|\s*safe(?:seq)?\b/;

function djangoTemplate(a: PyHost, s: PySite, engineRaw: boolean): Val {
  const text = constText(s.arg0);
  if (text !== null && /\{%\s*autoescape\s+off\s*%\}/.test(text))
    a.config("autoescape", s.node, `${s.callee}() with {% autoescape off %}`);
  return template(engineRaw || (text !== null && DJANGO_RAW.test(text)));
}

/** What a template renders from its data: HTML-escaped unless it prints raw. */
function rendered(raw: boolean, data: Val[]): Val {
  const v = stringify(joinAll(data.map((d) => ({ flows: deepFlows(d) }))));
  return raw ? v : clean(v, ["xss"]);
}

export const PY_TEMPLATE_MODELS: PyTable = [
  {
    what: "Mako Template(text, default_filters=…): raw unless it HTML-escapes; template injection from its text",
    callee: /^mako\.template\.Template$/,
    then: (a, s) => {
      a.sink("template", s.arg0, s.node, `${s.callee}()`, false);
      return r(template(makoRaw(a, s, s.node, constText(s.arg0))));
    },
  },
  {
    what: "Mako TemplateLookup(default_filters=…): its templates print raw unless it HTML-escapes",
    callee: /^mako\.lookup\.TemplateLookup$/,
    then: (a, s) => r({ ...template(makoRaw(a, s, s.node, null)), kind: "mako-lookup" }),
  },
  {
    what: "lookup.get_template(name)",
    recv: "mako-lookup",
    method: /^get_template$/,
    then: (_a, s) => r(template(s.recv!.meta?.raw === "1")),
  },
  {
    what: "Django Template(text): escapes unless {% autoescape off %} or |safe",
    callee: /^django\.template\.(?:Template|base\.Template)$/,
    then: (a, s) => {
      a.sink("template", s.arg0, s.node, `${s.callee}()`, false);
      return r(djangoTemplate(a, s, false));
    },
  },
  {
    what: "Django Engine(autoescape=False)",
    callee: /^django\.template\.Engine$/,
    then: (a, s) => {
      const off = /^(?:False|0)$/.test(kwText(s, "autoescape"));
      if (off) a.config("autoescape", s.node, `${s.callee}() with autoescape=False`);
      return r({ flows: [], kind: "django-engine", meta: { raw: off ? "1" : "" } });
    },
  },
  {
    what: "engine.from_string(text) / get_template(name)",
    recv: "django-engine",
    method: /^(?:from_string|get_template)$/,
    then: (a, s) => {
      const raw = s.recv!.meta?.raw === "1";
      if (s.method === "get_template") return r(template(raw));
      a.sink("template", s.arg0, s.node, `${s.callee}()`, false);
      return r(djangoTemplate(a, s, raw));
    },
  },
  {
    what: "template.render(…) / render_unicode(…): the data, escaped unless the template prints raw",
    recv: "py-template",
    method: /^(?:render|render_unicode)$/,
    then: (_a, s) => r(rendered(s.recv!.meta?.raw === "1", [...s.args, ...s.kwargs.values()])),
  },
  {
    what: "Django format_html(fmt, *args): the arguments are escaped, the format string is not",
    callee: /^(?:django\.utils\.html\.format_html|format_html)$/,
    then: (_a, s) =>
      r(stringify(joinAll([s.arg0, clean(stringify(joinAll([...s.args.slice(1), ...s.kwargs.values()])), ["xss"])]))),
  },
];
