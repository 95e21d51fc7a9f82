/**
 * Python models for parsers and engines whose settings decide the weakness: Jinja environments with
 * escaping off, XML parsers that resolve external entities (lxml, SAX), and XPath queries over a
 * parsed tree. Part of the call table in `py/calls.ts` (same shape, asked in this order).
 */
import { deepFlows, EMPTY, type Val } from "../values.ts";
import type { Modelled } from "../models.ts";
import { kw, kwText, type PyTable } from "./site.ts";

const r = (result: Val): Modelled => ({ result });

export const PY_SETTINGS_MODELS: PyTable = [
  {
    what: "autoescape: a Jinja environment without HTML escaping (a setting: reported whatever the data)",
    callee: /^(?:jinja2\.Environment|jinja2\.Template|jinja2\.environment\.Environment)$/,
    then: (a, s) => {
      const autoescape = kwText(s, "autoescape");
      const loader = kwText(s, "loader");
      if (/^(?:False|None|0)$/.test(autoescape) || (!autoescape && /Loader\(/.test(loader)))
        a.config(
          "autoescape",
          s.node,
          `${s.callee}() ${autoescape ? `with autoescape=${autoescape}` : "without autoescape"}`,
        );
      return r(EMPTY);
    },
  },
  {
    what: "an lxml parser: unsafe unless resolve_entities=False",
    callee: /^(?:lxml\.etree|etree)\.XMLParser$/,
    then: (_a, s) => {
      const unsafe =
        /True/.test(kwText(s, "resolve_entities")) ||
        /True/.test(kwText(s, "load_dtd")) ||
        /False/.test(kwText(s, "no_network")) ||
        !s.kwargNodes.has("resolve_entities");
      return r({ flows: [], kind: "xml-parser", meta: { unsafe: unsafe ? "1" : "" } });
    },
  },
  {
    what: "xxe: lxml parsing with entity resolution on",
    callee: /^(?:lxml\.etree|etree)\.(?:fromstring|XML|parse|iterparse|fromstringlist)$/,
    then: (a, s) => {
      const parser = kw(s, "parser") ?? s.args[1];
      const unsafe = parser
        ? parser.kind === "xml-parser" && parser.meta?.unsafe === "1"
        : /^\s*from\s+lxml\b|^\s*import\s+lxml\b/m.test(a.ctx.source);
      if (unsafe) a.sink("xxe", s.arg0, s.node, `${s.callee}() with entity resolution on`);
      return r({ flows: deepFlows(s.arg0), kind: "xml-tree" });
    },
  },
  {
    what: "a SAX parser",
    callee: /^xml\.sax\.make_parser$/,
    then: () => r({ flows: [], kind: "sax-parser", meta: {} }),
  },
  {
    what: "xxe: a SAX parser with external entities on",
    recv: "sax-parser",
    then: (a, s) => {
      const recv = s.recv!;
      if (
        s.method === "setFeature" &&
        /external_ges|external_pes/.test(s.argNodes[0]?.text ?? "") &&
        /True|1/.test(s.argNodes[1]?.text ?? "")
      )
        recv.meta = { ...recv.meta, unsafe: "1" };
      if (
        s.method === "setFeature" &&
        /external_ges|external_pes/.test(s.argNodes[0]?.text ?? "") &&
        /^(?:False|0)$/.test(s.argNodes[1]?.text ?? "")
      )
        recv.meta = { ...recv.meta, unsafe: "" };
      if (s.method === "parse" && recv.meta?.unsafe)
        a.sink("xxe", s.arg0, s.node, "SAX parser with external entities on");
      return r(EMPTY);
    },
  },
  {
    what: "xxe: xml.dom.pulldom / minidom given a SAX parser with external entities on",
    callee: /^(?:xml\.dom\.)?(?:pulldom|minidom)\.(?:parse|parseString)$/,
    then: (a, s) => {
      const parser = kw(s, "parser") ?? s.args[1];
      if (parser?.kind === "sax-parser" && parser.meta?.unsafe)
        a.sink("xxe", s.arg0, s.node, `${s.callee}() with a parser that loads external entities`);
      return r({ flows: deepFlows(s.arg0), kind: "xml-tree" });
    },
  },
  {
    what: "parsers that do not resolve external entities",
    callee:
      /^(?:xml\.etree\.ElementTree|ElementTree|ET|defusedxml\.ElementTree|xml\.dom\.minidom|minidom)\.(?:fromstring|parse|parseString|XML)$/,
    then: (_a, s) => r({ flows: deepFlows(s.arg0), kind: "xml-tree" }),
  },
  {
    what: "xpath: an expression built from data",
    when: (s) =>
      s.method === "xpath" || /^(?:lxml\.etree|etree)\.XPath$/.test(s.callee) || /^elementpath\.select$/.test(s.callee),
    then: (a, s) => {
      const expr = s.callee.startsWith("elementpath") ? s.args[1] : s.arg0;
      if (!(expr?.fields || expr?.elems)) a.sink("xpath", expr, s.node, `${s.callee}()`, false);
      return r({ flows: [], kind: "xml-tree" });
    },
  },
  {
    what: "xpath: find() / findall() on a tree",
    recv: "xml-tree",
    method: /^(?:find|findall|findtext|iterfind)$/,
    then: (a, s) => {
      a.sink("xpath", s.arg0, s.node, `${s.callee}()`, false);
      return r(EMPTY);
    },
  },
  { what: "getroot()", recv: "xml-tree", method: /^(?:getroot|getroottree)$/, then: (_a, s) => r(s.recv!) },
];
