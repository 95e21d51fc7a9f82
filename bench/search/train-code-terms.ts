/**
 * Trains the doc-comment → code word-translation table that search over code uses
 * (server/retrieval/text/code-terms.ts, data in server/retrieval/text/code-terms.json).
 *
 * Reads documented functions — the first sentence of a JSDoc comment or docstring, and the function
 * with its comments removed (the extraction of the bench's doc-comment sets: code-set.ts
 * documentedJsFunctions, python-set.ts documentedPyFunctions) — from code that is in NO bench set:
 *  - every package under node_modules under a permissive licence (MIT, ISC, Apache-2.0, BSD …) except
 *    the bench sets' packages (code-set.ts, question-set.ts) and their families (anything eslint,
 *    engine.io*, socket.io*, express …);
 *  - Python packages Debian installs outside the standard library, /usr/lib/python3/dist-packages
 *    (the bench's Python sets are /usr/lib/python3.11), except the copyleft ones (COPYLEFT_PY).
 * Any pair whose sentence or function text also occurs in a bench set is dropped as well (vendored
 * copies). Then IBM Model 1 (Brown et al. 1993), 8 EM iterations: p(code term | doc word), both sides
 * as the index's terms (identifiers split, lower-cased, Porter stems), the code side without the
 * languages' keywords, a NULL word on the doc side to absorb code terms every function has. Kept:
 * per doc word (in ≥ MIN_DF sentences) its TOP code terms with p ≥ MIN_P, each as its most frequent
 * written form, so full text can search it as a word.
 *
 * Deterministic (sorted inputs, no randomness). Rebuild after changing node_modules or the Debian
 * packages (apt-get install python3-django python3-numpy python3-requests python3-jinja2
 * python3-docutils python3-sqlalchemy):
 *
 *   node --import tsx bench/search/train-code-terms.ts [server/retrieval/text/code-terms.json]
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { splitIdentifier, IDENTIFIER } from "../../server/retrieval/split-identifiers.ts";
import { STOP_WORDS, stem, terms } from "../../server/retrieval/text/terms.ts";
import { buildCodeSet, CODE_SET_SOURCES, documentedJsFunctions, type DocumentedFunction } from "./code-set.ts";
import { buildPythonSet, documentedPyFunctions } from "./python-set.ts";
import { buildJsQuestions, buildPythonQuestions, QUESTION_JS_SOURCES } from "./question-set.ts";

const OUT = process.argv[2] ?? "server/retrieval/text/code-terms.json";
const DIST_PACKAGES = "/usr/lib/python3/dist-packages";
const MIN_DF = 3;
const TOP = 8;
const MIN_P = 0.02;
const ITERATIONS = 8;

const benchPackages = new Set(
  [...CODE_SET_SOURCES, ...QUESTION_JS_SOURCES].map((s) =>
    s.startsWith("@") ? s.split("/").slice(0, 2).join("/") : s.split("/")[0]!,
  ),
);
/** Families of the bench's packages: forks and siblings share code with them. */
const EXCLUDED = /eslint|^(engine\.io|socket\.io|express|cookie|semver|yaml|picomatch|esquery|ws$|debug$|qs$|ms$)/;

/** Permissive licences (an `OR` with one of them is fine: `(MIT OR GPL-3.0-or-later)`). */
const PERMISSIVE = /\b(MIT|ISC|Apache-2\.0|BSD-[23]-Clause|0BSD|BlueOak-1\.0\.0|Unlicense|CC0-1\.0)\b/;

function licenceOf(root: string): string {
  const pkg = JSON.parse(readFileSync(path.join(root, "package.json"), "utf8")) as {
    license?: string | { type?: string };
  };
  return typeof pkg.license === "string" ? pkg.license : (pkg.license?.type ?? "");
}

function nodePackages(): { root: string; name: string }[] {
  const nm = path.join(process.cwd(), "node_modules");
  const out: { root: string; name: string }[] = [];
  for (const e of readdirSync(nm).sort()) {
    const names = e.startsWith("@")
      ? readdirSync(path.join(nm, e))
          .sort()
          .map((n) => `${e}/${n}`)
      : [e];
    for (const name of names) {
      const root = path.join(nm, name);
      if (!existsSync(path.join(root, "package.json")) || benchPackages.has(name) || EXCLUDED.test(name)) continue;
      if (!PERMISSIVE.test(licenceOf(root))) continue;
      out.push({ root, name });
    }
  }
  return out;
}

/** Debian's Python modules under a copyleft licence (python-apt, software-properties, cupshelpers,
 * PyGObject, pysmbc: GPL / LGPL) are left out, so the table derives from permissive code only. */
const COPYLEFT_PY = new Set(["apt", "aptsources", "softwareproperties", "cupshelpers", "gi", "pygtkcompat", "smbc"]);

const KEYWORDS = new Set(
  (
    "function return const let var this self def new true false null undefined none typeof else elif pass raise " +
    "throw await async import from export class try catch except finally while for break continue lambda yield " +
    "not and or is in of instanceof void delete switch case default do with as assert global nonlocal super cls " +
    "arguments prototype module exports require"
  ).split(" "),
);

/** The code's terms (distinct) and, per stem, the written forms seen. */
function codeTerms(text: string, forms: Map<string, Map<string, number>>): string[] {
  const out = new Set<string>();
  for (const m of text.matchAll(IDENTIFIER))
    for (const part of splitIdentifier(m[0])) {
      const w = part.toLowerCase();
      if (w.length < 2 || !/^\p{L}+$/u.test(w) || STOP_WORDS.has(w) || KEYWORDS.has(w)) continue;
      const s = stem(w);
      out.add(s);
      const f = forms.get(s) ?? new Map<string, number>();
      f.set(w, (f.get(w) ?? 0) + 1);
      forms.set(s, f);
    }
  return [...out];
}

type Pair = DocumentedFunction & { source: string };

async function trainingPairs(): Promise<{ pairs: Pair[]; sources: Record<string, number> }> {
  const pairs: Pair[] = [];
  for (const pkg of nodePackages())
    for (const f of await documentedJsFunctions(pkg.root, pkg.root, pkg.name))
      pairs.push({ ...f, source: `npm:${pkg.name}` });
  for (const e of readdirSync(DIST_PACKAGES, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
    if (!e.isDirectory() || e.name.includes(".") || e.name.startsWith("_") || COPYLEFT_PY.has(e.name)) continue;
    for (const f of await documentedPyFunctions(path.join(DIST_PACKAGES, e.name), DIST_PACKAGES))
      pairs.push({ ...f, source: `python:${e.name}` });
  }
  // Nothing any bench set holds, even when vendored elsewhere.
  const bench = new Set<string>();
  for (const set of [await buildCodeSet(1e9), await buildPythonSet(1e9)]) {
    for (const d of set.docs) bench.add(d.text);
    for (const q of set.queries) bench.add(q.query.toLowerCase());
  }
  for (const set of [await buildJsQuestions(), await buildPythonQuestions()])
    for (const d of set.docs) bench.add(d.text);
  const seen = new Set<string>();
  const kept = pairs.filter(
    (p) =>
      !bench.has(p.text) && !bench.has(p.query.toLowerCase()) && !seen.has(p.text) && seen.add(p.text) !== undefined,
  );
  const sources: Record<string, number> = {};
  for (const p of kept) sources[p.source] = (sources[p.source] ?? 0) + 1;
  return { pairs: kept, sources };
}

const NULL = "\0";
/** IBM Model 1: t[w][c] = p(target term c | source term w), w ∈ the source's terms and NULL. */
function model1(data: { src: string[]; tgt: string[] }[]): Map<string, Map<string, number>> {
  const t = new Map<string, Map<string, number>>();
  for (const { src: nl, tgt: code } of data)
    for (const w of [NULL, ...nl]) {
      const row = t.get(w) ?? new Map<string, number>();
      for (const c of code) row.set(c, 1);
      t.set(w, row);
    }
  for (let it = 0; it < ITERATIONS; it++) {
    const counts = new Map<string, Map<string, number>>();
    for (const { src: nl, tgt: code } of data) {
      const src = [NULL, ...nl];
      const rows = src.map((w) => t.get(w)!);
      for (const c of code) {
        let denom = 0;
        for (const row of rows) denom += row.get(c)!;
        src.forEach((w, i) => {
          const row = counts.get(w) ?? new Map<string, number>();
          row.set(c, (row.get(c) ?? 0) + rows[i]!.get(c)! / denom);
          counts.set(w, row);
        });
      }
    }
    for (const [w, row] of counts) {
      let total = 0;
      for (const v of row.values()) total += v;
      for (const [c, v] of row) row.set(c, v / total);
      t.set(w, row);
    }
    process.stderr.write(`EM iteration ${it + 1}\n`);
  }
  return t;
}

// PAIRS_CACHE=/tmp/pairs.json: the extracted pairs are kept there and reused (experiments only).
const cache = process.env.PAIRS_CACHE;
const { pairs, sources } = (
  cache && existsSync(cache) ? JSON.parse(readFileSync(cache, "utf8")) : await trainingPairs()
) as Awaited<ReturnType<typeof trainingPairs>>;
if (cache && !existsSync(cache)) writeFileSync(cache, JSON.stringify({ pairs, sources }));
const forms = new Map<string, Map<string, number>>();
const nlDf = new Map<string, number>();
const codeDf = new Map<string, number>();
const raw = pairs.map((p) => {
  const nl = [...new Set(terms(p.query))].filter((w) => /^\p{L}{2,}$/u.test(w));
  const code = codeTerms(p.text, forms);
  for (const w of nl) nlDf.set(w, (nlDf.get(w) ?? 0) + 1);
  for (const c of code) codeDf.set(c, (codeDf.get(c) ?? 0) + 1);
  return { nl, code };
});
const data = raw
  .map(({ nl, code }) => ({
    nl: nl.filter((w) => nlDf.get(w)! >= MIN_DF),
    code: code.filter((c) => codeDf.get(c)! >= MIN_DF),
  }))
  .filter((d) => d.nl.length && d.code.length);
process.stderr.write(`${pairs.length} pairs (${data.length} used) from ${Object.keys(sources).length} packages\n`);
const t = model1(data.map((d) => ({ src: d.nl, tgt: d.code })));
/** A code term's most frequent written form (what full text would search for). */
function formOf(c: string): string {
  return [...forms.get(c)!].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))[0]![0];
}
const table: Record<string, [string, number][]> = {};
for (const w of [...t.keys()].filter((w) => w !== NULL).sort()) {
  const top = [...t.get(w)!]
    .filter(([, p]) => p >= MIN_P)
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    .slice(0, TOP)
    .map(([c, p]): [string, number] => [formOf(c), Math.round(p * 1000) / 1000]);
  if (top.length) table[w] = top;
}
const count = (prefix: string) =>
  Object.entries(sources)
    .filter(([k]) => k.startsWith(prefix))
    .reduce((n, [, v]) => n + v, 0);
writeFileSync(
  OUT,
  JSON.stringify({
    about:
      "p(code word | doc word), IBM Model 1 over documented functions not in any bench set; bench/search/train-code-terms.ts",
    pairs: data.length,
    sources: {
      npm: count("npm:"),
      python: count("python:"),
      packages: sources,
    },
    terms: table,
  }) + "\n",
);
process.stderr.write(`${Object.keys(table).length} doc words → ${OUT}\n`);
