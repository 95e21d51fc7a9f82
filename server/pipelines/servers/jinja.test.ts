/**
 * The sandboxed Jinja renderer: Jinja2's output for UltraRAG's prompts (whitespace, escaping, Python
 * printing of values) and hostile templates that must not reach the host.
 */
import { describe, expect, it } from "vitest";
import { compileTemplate, MAX_RANGE, renderTemplate, TemplateError } from "./jinja.ts";

const render = (src: string, vars: Record<string, unknown> = {}) =>
  renderTemplate(compileTemplate(src, "t"), vars, "t");

describe("Jinja2-identical output", () => {
  it("drops exactly one trailing newline and keeps block whitespace (no trim_blocks / lstrip_blocks)", () => {
    expect(render("Question: {{question}}\n", { question: "q" })).toBe("Question: q");
    expect(render("a\n\n", {})).toBe("a\n");
    expect(render("{% for d in docs %}\n  - {{ d }}\n{% endfor %}\nend", { docs: ["x", "y"] })).toBe(
      "\n  - x\n\n  - y\n\nend",
    );
    expect(render("{%- if flag -%}\n  A  \n{%- endif -%}\n!", { flag: true })).toBe("A!");
  });

  it("escapes string inputs as markupsafe does, and leaves template text alone", () => {
    expect(render(`<q>{{ q }}</q>`, { q: `Tom's <b>"bold"</b> & co` })).toBe(
      "<q>Tom&#39;s &lt;b&gt;&#34;bold&#34;&lt;/b&gt; &amp; co</q>",
    );
  });

  it("prints values as Python does: True, None, numbers, and lists of inputs as escaped Markup reprs", () => {
    expect(render("{{ t }} {{ f }} {{ n }} {{ x }} {{ missing }}|", { t: true, f: false, n: null, x: 3 })).toBe(
      "True False None 3 |",
    );
    expect(render("{{ docs }}", { docs: ["<b>", "it's"] })).toBe(
      "[Markup(&#39;&amp;lt;b&amp;gt;&#39;), Markup(&#39;it&amp;#39;s&#39;)]",
    );
    expect(render("{{ d }}", { d: { a: 1, b: [true, null] } })).toBe("{&#39;a&#39;: 1, &#39;b&#39;: [True, None]}");
    expect(render("{% set s = 'x' %}{{ s }}{% set n = none %}.", {})).toBe("x.");
  });

  it("supports the Jinja the templates use: filters, slicing, loops with loop.index, conditionals", () => {
    expect(
      render("{% for d in docs %}{{ loop.index }}. {{ d|upper }}{% if not loop.last %}; {% endif %}{% endfor %}", {
        docs: ["a", "b"],
      }),
    ).toBe("1. A; 2. B");
    expect(render("{{ q[:3] }} {{ docs|length }} {{ docs|join(', ') }}", { q: "hello", docs: ["a", "b"] })).toBe(
      "hel 2 a, b",
    );
  });
});

describe("hostile templates cannot reach the host", () => {
  const payloads = [
    "{{ x.constructor.constructor('return process')() }}",
    "{{ range.constructor('return process')() }}",
    "{{ raise_exception.constructor('return globalThis')() }}",
    "{{ ''.__class__.__mro__[1].__subclasses__() }}",
    "{{ x.__proto__ }}{{ x['__proto__'] }}{{ x.constructor }}",
    "{{ d.constructor.prototype }}{{ d.__class__.__init__.__globals__ }}",
    "{{ cycler.__init__.__globals__.os }}{{ lipsum }}{{ self }}",
    "{{ process }}{{ require }}{{ globalThis }}{{ module }}{{ Function }}",
    "{{ require('child_process') }}",
    "{% set ns = namespace() %}{% set ns.__proto__ = 1 %}{{ ns.__proto__ }}",
    "{{ d.toString() }}{{ x.valueOf() }}",
  ];
  it.each(payloads)("%s renders nothing from the host (or is refused)", (src) => {
    let out = "";
    try {
      out = render(src, { x: "s", d: { a: 1 } });
    } catch (err) {
      expect(err).toBeInstanceOf(TemplateError);
    }
    expect(out).not.toMatch(/function|\[object|native code|v\d+\.\d+|child_process|env/);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.prototype).not.toHaveProperty("__argus");
  });

  it("a host object passed as data is only data", () => {
    expect(render("{{ o.a }}{{ o.constructor }}", { o: JSON.parse('{"a":"1","__proto__":{"x":2}}') })).toBe("1");
  });

  it("refuses huge ranges, endless loops and runaway output instead of hanging the server", () => {
    expect(() => render("{% for i in range(1000000) %}{% endfor %}")).toThrow(`over the limit of ${MAX_RANGE}`);
    const started = Date.now();
    expect(() => render("{% for i in range(100000) %}{% for j in range(100000) %}{% endfor %}{% endfor %}")).toThrow(
      /did not finish within/,
    );
    expect(Date.now() - started).toBeLessThan(20_000); // bounded, not hung (2 shared cores);
    expect(() => render("{% for i in range(100) %}{{ big }}{% endfor %}", { big: "x".repeat(100_000) })).toThrow(
      /produced more than/,
    );
  });

  it("reports a syntax error naming the template", () => {
    expect(() => compileTemplate("{% for %}", "prompt/bad.jinja")).toThrow(
      /template prompt\/bad.jinja is not valid Jinja/,
    );
  });
});
