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
 * packages. The shipped table (25,262 pairs; its "sources" lists the modules read) was trained with
 * node_modules and these Debian packages besides what the machine had: apt-get install python3-django
 * python3-numpy python3-requests python3-jinja2 python3-docutils python3-sqlalchemy. The first table
 * also read the LGPL modules lazr, wadllib, cairo and chardet (142 pairs) before the trainer left
 * them out; it measured 0.4945 on the development mean, this one 0.4930
 * (server/retrieval/README.md, "Issue 31 follow-up").
 *
 * The larger experiment there (98,966 pairs, not shipped: no better) added these Debian packages,
 * each name below being python3-NAME (`apt-get install --no-install-recommends python3-acme …`,
 * Debian 12; with their dependencies, 482 Python modules were read):
 *   acme agate aiohttp aiosignal alabaster alembic amqp anyio apipkg apscheduler arrow asn1crypto
 *   astropy async-timeout attr authlib automat autopep8 avro babel bcrypt beaker billiard biopython
 *   bitarray bleach blessed boltons boto3 botocore bottle bottleneck bs4 bson btrees build
 *   cachecontrol cachetools cachy cairocffi capstone castellan cbor2 celery certbot cffi chameleon
 *   charset-normalizer cheroot cherrypy3 cinderclient cleo click click-didyoumean click-log
 *   click-plugins cliff cloudpickle cmd2 colorama configargparse configobj constantly construct
 *   coverage crashtest croniter cryptography cssselect csvkit cycler dask dateparser dateutil
 *   debtcollector decorator defusedxml diskcache distributed django dnspython docker dockerpty
 *   docopt docutils docx dogpile.cache dulwich ecdsa elementpath email-validator emoji eventlet
 *   execnet fabric falcon fastapi feedparser filelock fiona fire fixtures flake8 flask flask-babel
 *   flask-caching flask-cors flask-login flask-migrate flask-restful flask-sqlalchemy flatbuffers
 *   fonttools frozenlist futurist genshi geopandas gevent glanceclient google-auth googleapi
 *   graphviz greenlet grpcio gunicorn h11 h5py hatchling hglib html5lib httpcore httpx humanize
 *   hyperlink icalendar idna imageio imagesize incremental inflect inflection iniconfig installer
 *   intervaltree invoke ipy ipykernel ipython ipywidgets iso8601 isodate isort itemadapter
 *   itsdangerous jaraco.classes jaraco.collections jaraco.functools jaraco.text jedi jeepney jinja2
 *   jmespath joblib josepy jsonpatch jsonpickle jsonschema junos-eznc jupyter-client keyring
 *   keystoneauth1 keystoneclient kiwisolver kombu kubernetes langdetect llvmlite lockfile logutils
 *   lxml mako markdown markdown-it markupsafe marshmallow marshmallow-sqlalchemy matplotlib mccabe
 *   mdurl mechanize mistune more-itertools mpmath msgpack multidict mypy myst-parser nacl nbconvert
 *   nbformat ncclient netaddr netifaces netmiko networkx neutronclient nltk nose2 notebook
 *   novaclient numba numexpr numpy numpydoc oauth2client openpyxl openstacksdk ordered-set
 *   os-client-config oscrypto oslo.cache oslo.concurrency oslo.config oslo.context oslo.db
 *   oslo.i18n oslo.log oslo.messaging oslo.middleware oslo.policy oslo.serialization oslo.service
 *   oslo.upgradecheck oslo.utils osprofiler outcome packaging pandas parsedatetime parsel parso
 *   passlib paste pastedeploy patsy pdfminer pecan peewee pem pendulum pep517 persistent pexpect
 *   phonenumbers pil pkginfo platformdirs plotly pluggy plumbum ply poetry poetry-core portend
 *   prettytable prompt-toolkit protego protobuf psutil ptyprocess py pyasn1 pyasn1-modules
 *   pycodestyle pycparser pydantic pydispatch pydocstyle pydot pydotplus pyee pyelftools pyflakes
 *   pyglet pygraphviz pyinotify pyld pylibmc pymemcache pymongo pymysql pypdf2 pyperclip pyproj
 *   pyqtgraph pyramid pyrsistent pysam pysaml2 pytest pytest-mock pytest-xdist pywt queuelib
 *   rasterio rdflib readme-renderer recommonmark redis regex reportlab requests requests-oauthlib
 *   requests-toolbelt responses retrying rfc3339 rich routes rsa ruamel.yaml s3transfer schedule
 *   scipy scrapy seaborn secretstorage service-identity setuptools-scm sh shapely simplegeneric
 *   simplejson skimage sklearn slugify sniffio snowballstemmer sortedcontainers soupsieve
 *   sparqlwrapper sphinx sphinx-rtd-theme sphinxcontrib.websupport sqlalchemy sqlparse starlette
 *   statsmodels stestr stevedore subunit swiftclient sympy tables tablib tabulate taskflow tempora
 *   tenacity termcolor testresources testscenarios testtools textfsm textile threadpoolctl thrift
 *   tifffile tinycss2 tomlkit toolz tooz tornado traitlets transaction treq trio trustme twisted
 *   typer tz tzlocal ujson uritemplate urllib3 uvicorn validators vine virtualenv vobject w3lib
 *   waitress watchdog wcwidth webencodings webob websocket websockets webtest werkzeug whoosh wrapt
 *   wsme wtforms xarray xlrd xlsxwriter xlwt xmlschema xmlsec yapf yarl zc.lockfile zope.component
 *   zope.event zope.interface zope.schema
 *
 * and, with these npm packages as well (`npm install --ignore-scripts` in a directory of its own,
 * EXTRA_NODE_MODULES=<it>/node_modules; 114,474 pairs, 32,063 of them npm — also no better):
 *   @hapi/hapi acorn acorn-walk ajv archiver async async-lock axios backbone bcryptjs big.js
 *   bignumber.js bluebird bn.js bull bunyan chai chalk change-case chart.js cheerio chokidar
 *   clean-css commander core-js cron cross-spawn crypto-js csv-parse d3 date-fns dayjs decimal.js
 *   ejs elliptic enhanced-resolve entities escodegen esprima eventemitter3 execa fast-xml-parser
 *   fastify flatted form-data fs-extra got graceful-fs handlebars he helmet highlight.js
 *   hosted-git-info htmlparser2 iconv-lite immer immutable ini inquirer ioredis jimp joi jquery
 *   json5 jsonc-parser jsonwebtoken jszip keyv knex koa koa-router leaflet less lodash log4js lowdb
 *   lru-cache luxon magic-string markdown-it marked mathjs minimist mkdirp mobx mocha moment
 *   mongodb mongoose mustache mysql nanoid nock node-cache node-cron node-fetch nodemailer
 *   normalize-package-data npm-package-arg numeral ora p-limit p-queue pako papaparse parse5
 *   passport pdfkit pg pino pluralize postcss pug punycode q qrcode ramda readable-stream recast
 *   redux resolve restify rimraf rollup rxjs sanitize-html sequelize shelljs showdown sinon
 *   source-map stylus superagent supertest tapable tar terser three through2 toml tough-cookie
 *   tweetnacl uglify-js underscore uuid validator webpack which winston xml2js yargs yup
 *
 * Knobs for experiments (environment): MIN_DF, TOP, MIN_P, ITERATIONS, PER_PACKAGE (a cap per package),
 * EXTRA_NODE_MODULES (another npm install's node_modules), PAIRS_CACHE (reuse the extracted pairs).
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
// The knobs; the environment overrides them while experimenting (MIN_DF=5 TOP=12 …).
const knob = (name: string, value: number) => Number(process.env[name] ?? value);
const MIN_DF = knob("MIN_DF", 3);
const TOP = knob("TOP", 8);
const MIN_P = knob("MIN_P", 0.02);
const ITERATIONS = knob("ITERATIONS", 8);

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

function nodePackages(nm: string): { root: string; name: string }[] {
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

/** Debian's Python modules under a copyleft licence (the "Files: *" licence of the owning package's
 * /usr/share/doc/<package>/copyright: GPL, LGPL, MPL, EPL — python-apt, software-properties,
 * cupshelpers, PyGObject, pycairo, pysmbc, lazr.uri, wadllib, paramiko, chardet, certifi, tqdm,
 * hypothesis, pathspec, psycopg2, unidecode, odfpy, pytest-mock, autocommand, ephem, mercurial, PyQt,
 * pydevd) are left out, so the table derives from permissive code only. */
const COPYLEFT_PY = new Set([
  "apt",
  "apt_inst-stubs",
  "apt_pkg-stubs",
  "aptsources",
  "autocommand",
  "cairo",
  "certifi",
  "chardet",
  "cupshelpers",
  "ephem",
  "gi",
  "hgdemandimport",
  "hgext",
  "hgext3rd",
  "hypothesis",
  "lazr",
  "mercurial",
  "odf",
  "paramiko",
  "pathspec",
  "psycopg2",
  "pydev_ipython",
  "pydevd_attach_to_process",
  "pydevd_plugins",
  "pygtkcompat",
  "PyQt5",
  "PyQt6",
  "pytest_mock",
  "smbc",
  "softwareproperties",
  "tqdm",
  "unidecode",
  "wadllib",
]);

/** Backports and copies of the standard library (the bench's Python sets): near-copies of its
 * functions would slip past the exact-text check below. */
const STDLIB_COPIES = new Set([
  "backports",
  "contextlib2",
  "dataclasses",
  "enum",
  "exceptiongroup",
  "funcsigs",
  "future",
  "importlib_metadata",
  "importlib_resources",
  "libfuturize",
  "libpasteurize",
  "mock",
  "past",
  "pathlib2",
  "singledispatch",
  "tomli",
  "zipp",
]);
/** Copies inside other packages (setuptools' distutils). */
const STDLIB_COPY_DIR = /(^|\/)_distutils\//;

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
  // EXTRA_NODE_MODULES=/tmp/npm/node_modules: another install's packages too (experiments only; a
  // package already read from the project's node_modules is skipped).
  const roots = [path.join(process.cwd(), "node_modules"), ...(process.env.EXTRA_NODE_MODULES?.split(",") ?? [])];
  const names = new Set<string>();
  const npm = roots.flatMap((nm) => nodePackages(nm)).filter((p) => !names.has(p.name) && names.add(p.name));
  for (const pkg of npm)
    for (const f of await documentedJsFunctions(pkg.root, pkg.root, pkg.name))
      pairs.push({ ...f, source: `npm:${pkg.name}` });
  for (const e of readdirSync(DIST_PACKAGES, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
    if (!e.isDirectory() || e.name.includes(".") || e.name.startsWith("_")) continue;
    if (COPYLEFT_PY.has(e.name) || STDLIB_COPIES.has(e.name)) continue;
    for (const f of await documentedPyFunctions(path.join(DIST_PACKAGES, e.name), DIST_PACKAGES))
      if (!STDLIB_COPY_DIR.test(f.origin)) pairs.push({ ...f, source: `python:${e.name}` });
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
const extracted = (
  cache && existsSync(cache) ? JSON.parse(readFileSync(cache, "utf8")) : await trainingPairs()
) as Awaited<ReturnType<typeof trainingPairs>>;
if (cache && !existsSync(cache)) writeFileSync(cache, JSON.stringify(extracted));
/** PER_PACKAGE=n: at most n pairs of each package, evenly spread over its files (0: all). */
const PER_PACKAGE = knob("PER_PACKAGE", 0);
const { pairs, sources } = PER_PACKAGE ? capped(extracted, PER_PACKAGE) : extracted;

function capped(all: typeof extracted, cap: number): typeof extracted {
  const by = new Map<string, Pair[]>();
  for (const p of all.pairs) {
    const list = by.get(p.source) ?? [];
    list.push(p);
    by.set(p.source, list);
  }
  const kept = [...by.values()].flatMap((ps) =>
    ps.length <= cap ? ps : Array.from({ length: cap }, (_, i) => ps[Math.floor((i * ps.length) / cap)]!),
  );
  const counts: Record<string, number> = {};
  for (const p of kept) counts[p.source] = (counts[p.source] ?? 0) + 1;
  return { pairs: kept, sources: counts };
}
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
