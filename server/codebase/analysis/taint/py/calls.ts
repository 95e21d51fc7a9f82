/**
 * What calls do in Flask, Django, FastAPI/Starlette and Python's libraries, for the Python
 * interpreter: one table of models (the shape `../models.ts` defines and reads, the same as the JS
 * table) — request and low-trust sources, sinks by weakness, sanitizers, containers — in the order
 * they are asked. Settings checks and XML parsers are in `py/settings.ts`.
 */
import { SQL_WORDS } from "../../rules/sql.ts";
import {
  applyModels,
  sanitizerModel,
  sinkModel,
  sourceAt as src,
  sourceModel,
  stepAt as step,
  type Modelled,
} from "../models.ts";
import {
  clean,
  concat,
  deepFlows,
  element,
  EMPTY,
  field,
  join,
  joinAll,
  line,
  pushElement,
  setField,
  snippet,
  sourceVal,
  stringify,
  type Val,
} from "../values.ts";
import { charPredicate } from "../guards.ts";
import type { PyHost } from "./host.ts";
import type { PyCall } from "./model.ts";
import { PY_SETTINGS_MODELS } from "./settings.ts";
import { PY_TEMPLATE_MODELS } from "./templates.ts";
import { kw, kwText, type PySite, type PyTable } from "./site.ts";

const r = (result: Val): Modelled => ({ result });

const SQL_METHODS = /^(?:execute|executemany|executescript|exec_driver_sql|raw|read_sql|read_sql_query|mogrify)$/;
const NOSQL_METHODS =
  /^(?:find|find_one|find_one_and_update|find_one_and_delete|find_one_and_replace|update_one|update_many|delete_one|delete_many|replace_one|count_documents|count|aggregate|distinct|remove|update)$/;
const PATH_CALLS =
  /^(?:open|io\.open|codecs\.open|os\.(?:remove|unlink|rmdir|removedirs|listdir|scandir|makedirs|mkdir|rename|replace|stat|chmod|chown|open|walk)|shutil\.(?:rmtree|copy|copy2|copyfile|copytree|move)|os\.path\.(?:exists|isfile|getsize)|flask\.send_file|send_file|fastapi\.responses\.FileResponse|starlette\.responses\.FileResponse|FileResponse|django\.http\.FileResponse|aiofiles\.open|pathlib\.Path|Path|numpy\.load|np\.load)$/;
const HTTP_CLIENT =
  /^(?:requests|httpx|requests\.Session\(\)|httpx\.Client\(\)|httpx\.AsyncClient\(\))\.(?:get|post|put|patch|delete|head|options|request|stream)$|^(?:urllib\.request\.urlopen|urllib\.request\.Request|urllib2\.urlopen|urlopen|urllib3\.PoolManager\(\)\.request|aiohttp\.request)$/;
const DESERIALIZERS =
  /^(?:pickle|cPickle|_pickle|dill|cloudpickle|joblib|marshal|jsonpickle|shelve)\.(?:loads?|decode|Unpickler|open)$|^(?:pandas|pd)\.read_pickle$|^yaml\.(?:unsafe_load|unsafe_load_all|full_load|full_load_all)$/;
const XSS_RESPONSES =
  /^(?:flask\.make_response|make_response|flask\.Response|Response|werkzeug\.Response|werkzeug\.wrappers\.Response|django\.http\.HttpResponse|HttpResponse|django\.http\.HttpResponseBadRequest|django\.http\.HttpResponseNotFound|HttpResponseNotFound|HttpResponseBadRequest|fastapi\.responses\.HTMLResponse|starlette\.responses\.HTMLResponse|HTMLResponse|fastapi\.responses\.Response)$/;
const MARKUP =
  /^(?:markupsafe\.Markup|flask\.Markup|jinja2\.Markup|Markup|django\.utils\.safestring\.mark_safe|mark_safe|django\.utils\.safestring\.SafeString|SafeString)$/;
const HTML_ESCAPES =
  /^(?:html\.escape|markupsafe\.escape|flask\.escape|escape|cgi\.escape|django\.utils\.html\.escape|django\.utils\.html\.conditional_escape|conditional_escape|bleach\.clean|jinja2\.escape|xml\.sax\.saxutils\.escape|markupsafe\.escape_silent|django\.utils\.html\.strip_tags|strip_tags|nh3\.clean)$/;
const REDIRECTS =
  /^(?:flask\.redirect|redirect|django\.shortcuts\.redirect|django\.http\.HttpResponseRedirect|HttpResponseRedirect|django\.http\.HttpResponsePermanentRedirect|HttpResponsePermanentRedirect|fastapi\.responses\.RedirectResponse|starlette\.responses\.RedirectResponse|RedirectResponse)$/;
const CONVERSIONS =
  /^(?:int|float|bool|len|abs|round|hash|id|ord|uuid\.UUID|UUID|decimal\.Decimal|Decimal|datetime\.\w+|math\.\w+|secrets\.\w+|os\.urandom|uuid\.uuid4|time\.time)$/;

// ---- message consumers: Kafka and SQS payloads are data from whoever could produce them ----------

/** A received message (or batch, or response): every field read is the queued payload. */
const payload = (s: PySite): Val => src(s.node, "queue", { structured: true, whole: true });

const QUEUE_CONSUMERS: PyTable = [
  {
    what: "confluent_kafka.Consumer / kafka.KafkaConsumer (iterating a KafkaConsumer yields messages)",
    callee: /^(?:confluent_kafka\.Consumer|confluent_kafka\.DeserializingConsumer|kafka\.KafkaConsumer)$/,
    then: (_a, s) => r({ flows: [], kind: "kafka-consumer", elems: payload(s) }),
  },
  {
    what: "source (queue): consumer.poll() / consume()",
    recv: "kafka-consumer",
    then: (_a, s) => r(/^(?:poll|consume)$/.test(s.method) ? payload(s) : EMPTY),
  },
  {
    what: "source (queue): boto3 SQS receive_message() / a queue's receive_messages()",
    method: /^(?:receive_message|receive_messages)$/,
    when: (s) => !!s.recv,
    then: (_a, s) => r(s.method === "receive_messages" ? { flows: [], elems: payload(s) } : payload(s)),
  },
];

// ---- request objects and other sources -----------------------------------------------------------

const SOURCES: PyTable = [
  {
    what: "source: Flask request.get_json() / get_data()",
    recv: "flask-request",
    then: (_a, s) => {
      if (s.method === "get_json") return r(src(s.node, "request", { structured: true, whole: true }));
      return r(s.method === "get_data" ? src(s.node) : EMPTY);
    },
  },
  {
    what: "source: Starlette request.json() / body() / form()",
    recv: "starlette-request",
    then: (_a, s) => {
      if (s.method === "json") return r(src(s.node, "request", { structured: true, whole: true }));
      if (/^(?:body|form|stream)$/.test(s.method)) return r(src(s.node, "request", { whole: s.method === "form" }));
      return r(EMPTY);
    },
  },
  {
    what: "source: Django request methods",
    recv: "django-request",
    then: (_a, s) => r(/^(?:get_full_path|build_absolute_uri|get_host|read)$/.test(s.method) ? src(s.node) : EMPTY),
  },
  {
    what: "source: reads from a request's dicts (get(), getlist(), items() …)",
    when: (s) => !!s.recv?.meta?.whole && s.recv.flows.length > 0,
    then: (_a, s) => {
      const recv = s.recv!;
      const f = recv.flows[0]!;
      if (/^(?:get|pop|setdefault)$/.test(s.method)) {
        const what = snippet(s.node, 50);
        const v = sourceVal("request", what, { line: line(s.node), what }, { structured: f.structured });
        return r(s.args[1] ? join(v, s.args[1]) : v);
      }
      if (/^(?:getlist|values|items|keys)$/.test(s.method))
        return r({ flows: [], elems: src(s.node, "request", { structured: f.structured }) });
      if (/^(?:to_dict|dict|copy)$/.test(s.method)) return r(recv);
      return undefined;
    },
  },
  sourceModel({
    what: "os.environ.get() (trusted, traced)",
    recv: "environ",
    method: /^get$/,
    origin: "env",
    orArg: 1,
  }),
  sourceModel({ callee: /^os\.getenv$/, origin: "env", orArg: 1 }),
  sourceModel({ callee: /^(?:input|raw_input)$/, origin: "stdin" }),
  // argparse / optparse: every parsed option is a command-line argument.
  sourceModel({ method: /^(?:parse_args|parse_known_args)$/, origin: "argv", whole: true }),
  sourceModel({ what: "source (stdin): sys.stdin reads", recv: "stdin", origin: "stdin" }),
  ...QUEUE_CONSUMERS,
  {
    what: "the session: get() reads a field, update() / setdefault() write request data",
    recv: "session",
    then: (a, s) => {
      if (s.method === "get") return r(field(s.recv!, s.arg0.hasConst ? String(s.arg0.c) : "*"));
      if (s.method === "update" || s.method === "setdefault")
        a.sink("trust-boundary", joinAll(s.args), s.node, `session.${s.method}()`);
      return r(EMPTY);
    },
  },
];

// ---- files and paths -----------------------------------------------------------------------------

const FILES: PyTable = [
  {
    what: "source (file): a file's contents",
    recv: "file",
    then: (_a, s) =>
      r(/^(?:read|readline|readlines|read_text|read_bytes)$/.test(s.method) ? src(s.node, "file") : EMPTY),
  },
  {
    what: "path: open() and file-system calls (open() is a file source)",
    callee: PATH_CALLS,
    then: (a, s) => {
      const { callee } = s;
      if (/^(?:pathlib\.Path|Path)$/.test(callee))
        return r({ flows: stringify(joinAll(s.args)).flows, kind: "path-obj" });
      const target = callee.endsWith("Path") ? s.arg0 : (kw(s, "file") ?? kw(s, "path") ?? s.arg0);
      a.sink("path", target, s.node, `${callee}()`, false);
      if (/open$/.test(callee)) return r({ ...src(s.node, "file"), kind: "file" });
      if (/^(?:numpy|np)\.load$/.test(callee) && /True/.test(kwText(s, "allow_pickle")))
        a.sink("deserialization", s.arg0, s.node, `${callee}(allow_pickle=True)`);
      return r(EMPTY);
    },
  },
  {
    what: "path: pathlib.Path methods",
    recv: "path-obj",
    then: (a, s) => {
      const recv = s.recv!;
      if (
        /^(?:read_text|read_bytes|open|write_text|write_bytes|unlink|rmdir|touch|mkdir|iterdir|exists|is_file)$/.test(
          s.method,
        )
      ) {
        a.sink("path", { flows: recv.flows }, s.node, `Path.${s.method}()`, false);
        if (s.method === "read_text" || s.method === "read_bytes") return r(src(s.node, "file"));
        return r(s.method === "open" ? { flows: [], kind: "file" } : EMPTY);
      }
      if (/^(?:resolve|absolute|joinpath|with_name)$/.test(s.method))
        return r({ ...recv, flows: stringify(joinAll([recv, ...s.args])).flows });
      return r({ flows: recv.flows, kind: "path-obj" });
    },
  },
  sanitizerModel({
    callee:
      /^(?:os\.path\.basename|werkzeug\.utils\.secure_filename|secure_filename|werkzeug\.security\.safe_join|werkzeug\.utils\.safe_join|flask\.safe_join|safe_join)$/,
    cleans: ["path"],
    input: "all",
  }),
  {
    what: "send_from_directory() stays in its directory",
    callee: /^(?:flask\.send_from_directory|send_from_directory)$/,
    then: () => r(EMPTY),
  },
  {
    what: "os.path.join …: a string of its parts",
    callee: /^os\.path\.(?:join|abspath|realpath|normpath|expanduser|dirname|splitext|relpath)$/,
    then: (_a, s) => r(stringify(joinAll(s.args))),
  },
];

// ---- responses: XSS, templates, cookies, redirects -----------------------------------------------

const RESPONSES: PyTable = [
  {
    what: "xss: an HTML response body",
    callee: XSS_RESPONSES,
    then: (a, s) => {
      const mimetype = kw(s, "mimetype") ?? kw(s, "content_type") ?? kw(s, "media_type");
      const type = mimetype?.hasConst ? String(mimetype.c) : s.callee.endsWith("HTMLResponse") ? "text/html" : "";
      const body = kw(s, "content") ?? kw(s, "response") ?? s.arg0;
      const htmlDefault = !/fastapi\.responses\.Response$/.test(s.callee);
      if ((type ? /html/i.test(type) : htmlDefault) && !body.fields && !body.elems)
        a.sink("xss", body, s.node, `${s.callee}()`, false);
      return r({ flows: [], kind: "response" });
    },
  },
  sinkModel({ callee: MARKUP, weakness: "xss", deep: false }),
  {
    what: "template: render_template_string(); `|safe` on a keyword argument is XSS",
    callee: /^(?:flask\.render_template_string|render_template_string)$/,
    then: (a, s) => {
      a.sink("template", s.arg0, s.node, `${s.callee}()`, false);
      const tpl = s.arg0.hasConst ? String(s.arg0.c) : (s.arg0.frag ?? "");
      if (/\|\s*safe\b|autoescape\s+false/i.test(tpl))
        for (const [k, v] of s.kwargs)
          if (new RegExp(`\\b${k}\\b[^}]*\\|\\s*safe|autoescape\\s+false`, "i").test(tpl))
            a.sink("xss", v, s.node, `{{ ${k}|safe }}`);
      return r(EMPTY);
    },
  },
  {
    what: "template: a template built from data; path: a template name",
    when: (s) =>
      /^(?:flask\.render_template|render_template|django\.shortcuts\.render|render|jinja2\.Template|Template|jinja2\.Environment\(\)\.from_string|mako\.template\.Template)$/.test(
        s.callee,
      ) || s.method === "from_string",
    then: (a, s) => {
      if (/Template$|from_string$/.test(s.callee)) a.sink("template", s.arg0, s.node, `${s.callee}()`, false);
      else if (/^(?:flask\.render_template|render_template)$/.test(s.callee))
        a.sink("path", s.arg0, s.node, `${s.callee}() template name`, false);
      return r(EMPTY);
    },
  },
  sanitizerModel({ callee: HTML_ESCAPES, cleans: ["xss"] }),
  {
    what: "JSON responses; json.dumps() is a string of its data",
    callee:
      /^(?:flask\.jsonify|jsonify|json\.dumps|django\.http\.JsonResponse|JsonResponse|JSONResponse|fastapi\.responses\.JSONResponse)$/,
    then: (_a, s) =>
      r(
        s.callee.endsWith("dumps")
          ? stringify(joinAll([...s.args, ...s.kwargs.values()]))
          : { flows: [], kind: "response" },
      ),
  },
  {
    what: "url_for() / reverse(): this site's URLs",
    callee: /^(?:flask\.url_for|url_for|django\.urls\.reverse|reverse)$/,
    then: () => r(EMPTY),
  },
  {
    what: "cookie: set_cookie() without Secure / HttpOnly; weak randomness in its value",
    method: /^set_cookie$/,
    then: (a, s) => {
      a.sink("weak-random", kw(s, "value") ?? s.args[1], s.node, "cookie value");
      const missing = [
        /True/.test(kwText(s, "secure")) ? null : "Secure",
        /True/.test(kwText(s, "httponly")) ? null : "HttpOnly",
      ].filter(Boolean);
      if (missing.length) a.config("cookie", s.node, `set_cookie() without ${missing.join(" and ")}`);
      return r(EMPTY);
    },
  },
  sinkModel({
    callee: REDIRECTS,
    weakness: "redirect",
    arg: (s) => kw(s, "url") ?? kw(s, "to") ?? s.arg0,
    result: { flows: [], kind: "response" },
  }),
];

// ---- command, code, deserialization --------------------------------------------------------------

const EXECUTION: PyTable = [
  sinkModel({
    callee:
      /^(?:os\.system|os\.popen|commands\.getoutput|commands\.getstatusoutput|subprocess\.getoutput|subprocess\.getstatusoutput|asyncio\.create_subprocess_shell|os\.popen2|os\.popen3|popen2\.popen2)$/,
    weakness: "command",
    result: (s) => (s.callee.startsWith("os.popen") ? { flows: [], kind: "file" } : EMPTY),
  }),
  {
    what: "command: subprocess (the command line with shell=True, else the program)",
    callee: /^(?:subprocess\.(?:call|run|Popen|check_output|check_call)|asyncio\.create_subprocess_exec)$/,
    then: (a, s) => {
      const cmd = kw(s, "args") ?? s.arg0;
      if (/True/.test(kwText(s, "shell"))) a.sink("command", cmd, s.node, `${s.callee}(shell=True)`);
      else if (cmd.fields || cmd.elems)
        a.sink("command", cmd.fields?.get("0") ?? element(cmd), s.node, `${s.callee}() program`, false);
      else if (s.callee === "asyncio.create_subprocess_exec")
        a.sink("command", s.arg0, s.node, `${s.callee}() program`, false);
      else a.sink("command", cmd, s.node, `${s.callee}() program`, false);
      return r(EMPTY);
    },
  },
  sinkModel({
    callee: /^os\.(?:exec[lv]p?e?|spawn[lv]p?e?)$/,
    weakness: "command",
    arg: (s) => (/spawn/.test(s.callee) ? s.args[1] : s.arg0),
    deep: false,
  }),
  sanitizerModel({ callee: /^(?:shlex\.quote|pipes\.quote)$/, cleans: ["command"] }),
  { what: "shlex.split()", callee: /^shlex\.split$/, then: (_a, s) => r({ flows: [], elems: stringify(s.arg0) }) },
  sinkModel({ callee: /^(?:eval|exec|compile|builtins\.eval|builtins\.exec)$/, weakness: "code" }),
  { what: "ast.literal_eval(): data, not code", callee: /^ast\.literal_eval$/, then: (_a, s) => r(stringify(s.arg0)) },
  sinkModel({ callee: DESERIALIZERS, weakness: "deserialization" }),
  {
    what: "deserialization: yaml.load() without a safe loader",
    callee: /^yaml\.(?:load|load_all)$/,
    then: (a, s) => {
      const loader = s.kwargNodes.get("Loader")?.text ?? s.argNodes[1]?.text ?? "";
      if (!/SafeLoader|CSafeLoader|BaseLoader/.test(loader)) a.sink("deserialization", s.arg0, s.node, `${s.callee}()`);
      return r({ flows: deepFlows(s.arg0).map((f) => ({ ...f, structured: true })) });
    },
  },
  {
    what: "safe parsers: structured data (from a file handle: the file's contents)",
    callee: /^(?:yaml\.safe_load|yaml\.safe_load_all|json\.loads?|tomllib\.loads?|ujson\.loads|orjson\.loads)$/,
    then: (_a, s) => {
      const flows = s.recv?.kind === "file" ? src(s.node, "file").flows : deepFlows(s.arg0);
      return r({ flows: flows.map((f) => ({ ...f, structured: true })) });
    },
  },
];

// ---- LDAP, SSRF, SQL, NoSQL, crypto --------------------------------------------------------------

const OUTBOUND: PyTable = [
  sanitizerModel({
    callee:
      /^(?:ldap\.filter\.escape_filter_chars|escape_filter_chars|ldap3\.utils\.conv\.escape_filter_chars|ldap\.filter\.filter_format|filter_format|ldap\.dn\.escape_dn_chars|escape_dn_chars)$/,
    cleans: ["ldap"],
    input: "all",
  }),
  {
    what: "ldap: search filter and base",
    method: /^(?:search_s|search_st|search_ext|search_ext_s|search)$/,
    when: (_s, a) => /\bldap3?\b/.test(a.ctx.source),
    then: (a, s) => {
      const ldap3 = /^\s*(?:from|import)\s+ldap3\b/m.test(a.ctx.source) && s.method === "search";
      const filter = kw(s, "search_filter") ?? kw(s, "filterstr") ?? (ldap3 ? s.args[1] : s.args[2]);
      a.sink("ldap", filter, s.node, `${s.callee}() filter`, false);
      a.sink("ldap", kw(s, "search_base") ?? kw(s, "base") ?? s.arg0, s.node, `${s.callee}() base`, false);
      return r(EMPTY);
    },
  },
  {
    what: "ssrf: HTTP clients",
    when: (s) =>
      HTTP_CLIENT.test(s.callee) ||
      (s.recv?.kind === "http-client" && /^(?:get|post|put|patch|delete|head|request|stream)$/.test(s.method)),
    then: (a, s) => {
      const url = kw(s, "url") ?? (s.method === "request" ? s.args[1] : s.arg0);
      a.sink("ssrf", url, s.node, `${s.callee}()`, false);
      return r(/Request$/.test(s.callee) ? { flows: [], kind: "http-request-obj", meta: {} } : EMPTY);
    },
  },
  {
    what: "an HTTP client object",
    callee: /^(?:requests\.Session|httpx\.Client|httpx\.AsyncClient|aiohttp\.ClientSession|urllib3\.PoolManager)$/,
    then: () => r({ flows: [], kind: "http-client" }),
  },
  sinkModel({
    callee: /^(?:http\.client\.HTTPConnection|http\.client\.HTTPSConnection)$/,
    weakness: "ssrf",
    deep: false,
  }),
  sinkModel({
    what: "sql: text() / RawSQL() of SQL",
    callee: /^(?:sqlalchemy\.text|text|sqlalchemy\.sql\.text|django\.db\.models\.expressions\.RawSQL|RawSQL)$/,
    when: (s) => (s.arg0.frag ? SQL_WORDS.test(s.arg0.frag) : true),
    weakness: "sql",
    deep: false,
  }),
  {
    what: "sql: cursor.execute() and friends",
    recv: "",
    method: SQL_METHODS,
    then: (a, s) => {
      const sql = kw(s, "sql") ?? kw(s, "query") ?? s.arg0;
      if (!sql.fields && (!sql.frag || SQL_WORDS.test(sql.frag))) a.sink("sql", sql, s.node, `${s.callee}()`, false);
      return r(EMPTY);
    },
  },
  {
    what: "sql: Django's QuerySet.extra()",
    method: /^extra$/,
    when: (s) => !!s.recv,
    then: (a, s) => {
      for (const k of ["where", "select", "tables", "order_by"]) {
        const v = kw(s, k);
        if (v) a.sink("sql", v, s.node, `${s.callee}(${k}=…)`);
      }
      return r(EMPTY);
    },
  },
  {
    what: "nosql: a pymongo filter",
    recv: "",
    method: NOSQL_METHODS,
    when: (s) => s.arg0 !== EMPTY,
    then: (a, s) => {
      nosqlCheck(a, s.arg0, s);
      return r(EMPTY);
    },
  },
  {
    what: "weak-hash: MD5 / SHA-1 / MD4 of a secret",
    when: (s) =>
      /^hashlib\.(?:md5|sha1|md4)$/.test(s.callee) ||
      (s.callee === "hashlib.new" && /^["'](?:md5|sha1|md4)["']/i.test(s.argNodes[0]?.text ?? "")),
    then: (a, s) => {
      const data = s.callee === "hashlib.new" ? s.args[1] : s.arg0;
      if (data) a.sink("weak-hash", data, s.node, s.callee);
      return r({ flows: [], kind: "weak-hash" });
    },
  },
  {
    what: "weak-hash: update()",
    recv: "weak-hash",
    then: (a, s) => {
      if (s.method === "update") a.sink("weak-hash", s.arg0, s.node, "weak hash update()");
      return r(EMPTY);
    },
  },
  {
    what: "source (random): the random module",
    callee: /^random\.(?:random|randint|choice|choices|randrange|getrandbits|sample|uniform|shuffle)$/,
    then: (_a, s) => r(sourceVal("random", `${s.callee}()`, step(s.node))),
  },
];

function nosqlCheck(a: PyHost, filter: Val, s: PySite): void {
  if (filter.fields) {
    for (const [k, v] of filter.fields) {
      if (k === "$where" || k === "$function")
        a.sink(
          "nosql",
          { flows: deepFlows(v).map((f) => ({ ...f, structured: true })) },
          s.node,
          `${s.callee}() $where`,
        );
      else if (v.fields) nosqlCheck(a, v, s);
      else a.sink("nosql", v, s.node, `${s.callee}() filter`, false);
    }
    return;
  }
  a.sink("nosql", filter, s.node, `${s.callee}() filter`, false);
}

// ---- conversions, strings and containers ---------------------------------------------------------

const STRINGS: PyTable = [
  { what: "conversions: numbers, lengths, ids carry no data", callee: CONVERSIONS, then: () => r(EMPTY) },
  {
    what: "filter(str.isalnum, s): only the characters the predicate allows remain (an allow-list)",
    callee: /^filter$/,
    when: (s) => /^str\.is(?:alnum|alpha|digit|decimal|numeric|ascii_letters)$/.test(s.argNodes[0]?.text ?? ""),
    then: () => r({ flows: [], elems: EMPTY }),
  },
  {
    what: "filter(lambda c: c in ALLOWED, s): the characters an allow-list predicate lets through",
    callee: /^filter$/,
    when: (s) => s.argNodes[0]?.type === "lambda" && !!s.args[1],
    then: (a, s) => {
      const fn = s.argNodes[0]!;
      const param = fn.childForFieldName("parameters")?.namedChildren[0];
      const body = fn.childForFieldName("body");
      const proven = param && body ? charPredicate(body, param.text, "python") : null;
      return proven ? r({ flows: [], elems: clean(element(s.args[1]!), proven) }) : undefined;
    },
  },
  { what: "str() / repr() / format()", callee: /^(?:str|repr|format)$/, then: (_a, s) => r(stringify(s.arg0)) },
  {
    what: "sanitizer: URL quoting (the path and the redirect too when '/' is quoted)",
    callee: /^(?:urllib\.parse\.quote|quote|urllib\.parse\.quote_plus|quote_plus)$/,
    then: (_a, s) => {
      const safe = kw(s, "safe") ?? s.args[1];
      const slashKept = !safe || (safe.hasConst && String(safe.c).includes("/"));
      return r(
        clean(
          stringify(s.arg0),
          slashKept ? ["xss", "command", "nosql", "sql"] : ["xss", "command", "nosql", "sql", "path", "redirect"],
        ),
      );
    },
  },
  {
    what: "urlparse()",
    callee: /^(?:urllib\.parse\.urlparse|urlparse|urllib\.parse\.urlsplit|urlsplit)$/,
    then: (_a, s) => r({ flows: deepFlows(s.arg0) }),
  },
  {
    what: "'…'.format(…)",
    method: /^format$/,
    when: (s) => !!s.recv?.hasConst,
    then: (_a, s) => r(concat([s.recv!, ...s.args, ...s.kwargs.values()].map((v) => stringify(v)))),
  },
  {
    what: "'sep'.join(items)",
    method: /^join$/,
    when: (s) => !!s.recv?.hasConst,
    then: (_a, s) => r(stringify(joinAll([element(s.arg0), s.arg0]))),
  },
  {
    what: "append / add / insert / extend",
    recv: "",
    method: /^(?:append|add|insert|extend)$/,
    then: (_a, s) => {
      const v = s.method === "insert" ? s.args[1] : s.method === "extend" ? element(s.arg0) : s.arg0;
      if (v) pushElement(s.recv!, v, s.method === "append");
      return r(EMPTY);
    },
  },
  {
    what: "dict.update({...})",
    recv: "",
    method: /^update$/,
    when: (s) => !!s.arg0.fields,
    then: (_a, s) => {
      for (const [k, v] of s.arg0.fields!) setField(s.recv!, k, v);
      return r(EMPTY);
    },
  },
  {
    what: "dict.get() with a known key",
    recv: "",
    method: /^get$/,
    when: (s) => !!(s.recv!.fields || s.recv!.elems) && !s.recv!.flows.length,
    then: (_a, s) => {
      const v = s.arg0.hasConst ? field(s.recv!, String(s.arg0.c)) : element(s.recv!);
      return r(s.args[1] ? join(v, s.args[1]) : v);
    },
  },
  {
    what: "tests and searches return no data",
    method: /^(?:startswith|endswith|isdigit|isalnum|isalpha|isnumeric|count|find|index|rfind)$/,
    when: (s) => !!s.recv,
    then: () => r(EMPTY),
  },
  {
    what: "str.replace()",
    method: /^replace$/,
    when: (s) => !!s.recv,
    then: (_a, s) => r(stringify(join(s.recv!, s.args[1] ?? EMPTY))),
  },
  {
    what: "re.sub() that removes everything outside a character class cleans",
    callee: /^re\.sub$/,
    when: (s) => !!s.args[2],
    then: (_a, s) => {
      const pattern = s.argNodes[0]?.text.replace(/^[rbu]*["']|["']$/gi, "") ?? "";
      const base = stringify(s.args[2]!);
      if (/^\[\^[\w\\\-. ]*\][+*]?$/.test(pattern) && s.args[1]?.hasConst)
        return r(
          clean(
            base,
            /\\\.|\./.test(pattern.slice(2, -1)) ? ["xss", "sql", "command", "nosql", "ldap", "xpath", "code"] : "all",
          ),
        );
      return r(base);
    },
  },
];

export const PY_CALL_MODELS: PyTable = [
  ...SOURCES,
  ...FILES,
  ...PY_TEMPLATE_MODELS,
  ...RESPONSES,
  ...EXECUTION,
  ...PY_SETTINGS_MODELS,
  ...OUTBOUND,
  ...STRINGS,
];

export function pyCallModel(a: PyHost, site: PyCall): Modelled | undefined {
  return applyModels(PY_CALL_MODELS, a, { ...site, arg0: site.args[0] ?? EMPTY });
}
