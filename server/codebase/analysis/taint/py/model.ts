/**
 * What Flask, Django, FastAPI/Starlette and Python's libraries do with data, for the Python
 * interpreter: request sources (and argv, environment, stdin, file reads as low-trust ones), sinks by
 * weakness, sanitizers, and which function parameters a framework fills from the request.
 */
import type { Node } from "../../../treesitter.ts";
import type { Env } from "../analyzer.ts";
import { SQL_WORDS } from "../../rules/sql.ts";
import {
  clean,
  pushElement,
  constant,
  deepFlows,
  element,
  EMPTY,
  field,
  join,
  joinAll,
  line,
  setField,
  snippet,
  sourceVal,
  stringify,
  concat,
  type Origin,
  type Val,
} from "../values.ts";
import type { Param, PyAnalyzer } from "./interp.ts";

export interface PyCall {
  node: Node;
  fnNode: Node;
  callee: string;
  method: string;
  recv?: Val;
  args: Val[];
  argNodes: Node[];
  kwargs: Map<string, Val>;
  kwargNodes: Map<string, Node>;
  env: Env;
}

const step = (n: Node) => ({ line: line(n), what: snippet(n, 50) });
function src(n: Node, origin: Origin = "request", structured = false, whole = false): Val {
  const v = sourceVal(origin, snippet(n, 50), step(n), { structured });
  return whole ? { ...v, meta: { whole: "1" } } : v;
}

// ---- views ---------------------------------------------------------------------------------------

const ROUTE_DECORATOR = /^@\s*[\w.]+\s*\.\s*(?:route|get|post|put|delete|patch|head|options|api_route|websocket)\s*\(/;
const SAFE_TYPES =
  /^(?:int|float|bool|UUID|uuid\.UUID|date|datetime|Decimal|PositiveInt|conint|Literal\[.*\]|Enum|\w+Enum)$/;

/** The values a framework passes to a view's parameters, and whether a returned string is HTML. */
export function viewParams(
  a: PyAnalyzer,
  fn: Node,
  params: Param[],
  decorators: Node[],
  inClass: boolean,
): { args: (Val | undefined)[]; htmlReturn: boolean; isView: boolean } {
  const route = decorators.find((d) => ROUTE_DECORATOR.test(d.text));
  const args: (Val | undefined)[] = [];
  if (route && a.framework !== "django") {
    const fastapi = a.framework === "fastapi";
    const intParams = new Set([...route.text.matchAll(/<(?:int|float|uuid):(\w+)>/g)].map((m) => m[1]!));
    params.forEach((p, i) => {
      const type = p.type?.text.replace(/\s+/g, "") ?? "";
      const dflt = p.default?.text ?? "";
      if (p.name === "self") return;
      if (/^(?:Request|starlette\.requests\.Request|fastapi\.Request)$/.test(type))
        args[i] = { flows: [], kind: "starlette-request" };
      else if (/^(?:Response|BackgroundTasks|Session|AsyncSession|WebSocket)$/.test(type) || /Depends\(/.test(dflt))
        args[i] = EMPTY;
      else if (
        intParams.has(p.name) ||
        SAFE_TYPES.test(type.replace(/^Optional\[(.*)\]$/, "$1").replace(/^Annotated\[(\w+),.*\]$/, "$1"))
      )
        args[i] = EMPTY;
      else {
        const structured = fastapi && /^(?:dict|Dict|Any|list|List)\b/.test(type);
        args[i] = sourceVal(
          "request",
          p.name,
          { line: line(p.node), what: `route parameter ${p.name}` },
          { structured },
        );
      }
    });
    const htmlReturn = !fastapi || /response_class\s*=\s*HTMLResponse/.test(route.text);
    return { args, htmlReturn, isView: true };
  }
  // Django: def view(request, …) / class-based views: def get(self, request, …).
  const offset = inClass && params[0]?.name === "self" ? 1 : 0;
  const first = params[offset];
  if (first && first.name === "request" && (a.framework === "django" || !a.framework)) {
    args[offset] = { flows: [], kind: "django-request" };
    params.slice(offset + 1).forEach((p, i) => {
      if (p.kind !== "plain") return;
      const type = p.type?.text ?? "";
      args[offset + 1 + i] = SAFE_TYPES.test(type)
        ? EMPTY
        : sourceVal("request", p.name, { line: line(p.node), what: `URL parameter ${p.name}` });
    });
    return { args, htmlReturn: false, isView: true };
  }
  if (first && first.name === "request" && a.framework === "fastapi") {
    args[offset] = { flows: [], kind: "starlette-request" };
    return { args, htmlReturn: false, isView: true };
  }
  // A queued task (Celery, RQ, Dramatiq) or a message callback (pika): the payload is data from
  // whoever could enqueue it.
  const task = decorators.some((d) => QUEUE_DECORATOR.test(d.text));
  const message = params.length >= 4 && /^(?:ch|channel)$/.test(params[0]!.name) && /^body$/.test(params[3]!.name);
  if (task || message)
    params.forEach((p, i) => {
      if (p.name === "self" || (message && i !== 3)) return;
      args[i] = sourceVal("queue", p.name, { line: line(p.node), what: `queued payload ${p.name}` });
    });
  void fn;
  return { args, htmlReturn: false, isView: false };
}

const QUEUE_DECORATOR = /^@\s*(?:[\w.]+\.task|shared_task|[\w.]*dramatiq\.actor|actor|job)\b/;

// ---- members -------------------------------------------------------------------------------------

const FLASK_MULTIDICTS = new Set(["args", "form", "values", "cookies", "headers", "files"]);
const FLASK_STRINGS = new Set([
  "data",
  "path",
  "full_path",
  "url",
  "base_url",
  "query_string",
  "referrer",
  "user_agent",
  "stream",
  "host_url",
  "script_root",
]);
const DJANGO_DICTS = new Set(["GET", "POST", "COOKIES", "META", "FILES", "headers", "data", "query_params"]);

export function pyMemberModel(a: PyAnalyzer, obj: Val, attr: string, node: Node, subscript: boolean): Val | undefined {
  void a;
  if (obj.meta?.whole && obj.flows.length) {
    if (!subscript && /^(?:get|getlist|to_dict|items|keys|values|copy|dict)$/.test(attr)) return undefined;
    const f = obj.flows[0]!;
    return sourceVal(f.origin, snippet(node, 50), step(node), { structured: f.structured });
  }
  switch (obj.kind) {
    case "flask-request":
      if (FLASK_MULTIDICTS.has(attr)) return src(node, "request", false, true);
      if (attr === "json") return src(node, "request", true, true);
      if (FLASK_STRINGS.has(attr)) return src(node);
      if (attr === "environ") return src(node, "request", false, true);
      return undefined;
    case "django-request":
      if (DJANGO_DICTS.has(attr)) return src(node, "request", attr === "data", true);
      if (attr === "body" || attr === "path" || attr === "path_info") return src(node);
      if (attr === "session") return session(obj);
      return undefined;
    case "starlette-request":
      if (/^(?:query_params|path_params|cookies|headers)$/.test(attr)) return src(node, "request", false, true);
      if (attr === "url") return src(node);
      return undefined;
    case "environ":
      return sourceVal("env", snippet(node, 50), step(node));
    case "stdin":
      return attr === "buffer" ? obj : undefined;
    case "module":
      if (obj.path === "sys" && attr === "argv") return { flows: [], elems: src(node, "argv") };
      if (obj.path === "os" && attr === "environ") return { flows: [], kind: "environ" };
      if (obj.path === "sys" && attr === "stdin") return { flows: [], kind: "stdin" };
      if (obj.path === "flask" && attr === "request") return { flows: [], kind: "flask-request" };
      if (obj.path === "flask" && attr === "session") return { flows: [], kind: "session", fields: new Map() };
      return undefined;
  }
  return undefined;
}

function session(owner: Val): Val {
  let s = owner.fields?.get("__session");
  if (!s) {
    s = { flows: [], kind: "session", fields: new Map() };
    setField(owner, "__session", s);
  }
  return s;
}

/** `session[k] = v`, `request.session[k] = v`, `response.headers["Location"] = v`. */
export function pyAssignModel(
  a: PyAnalyzer,
  obj: Val,
  key: string | undefined,
  v: Val,
  node: Node,
  keyVal?: Val,
): void {
  if (obj.kind === "session") {
    a.sink("trust-boundary", v, node, "session store");
    if (keyVal) a.sink("trust-boundary", keyVal, node, "session key");
    a.sink("weak-random", v, node, "session value");
  }
  if (obj.kind === "headers-out" && key?.toLowerCase() === "location") a.sink("redirect", v, node, "Location header");
}

// ---- calls ---------------------------------------------------------------------------------------

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

export function pyCallModel(a: PyAnalyzer, site: PyCall): Val | undefined {
  const { callee, method, recv, args, kwargs, node } = site;
  const arg0 = args[0] ?? EMPTY;
  const kw = (name: string) => kwargs.get(name);
  const kwText = (name: string) => site.kwargNodes.get(name)?.text ?? "";

  // ---- request methods
  if (recv?.kind === "flask-request") {
    if (method === "get_json") return src(node, "request", true, true);
    if (method === "get_data") return src(node);
    return EMPTY;
  }
  if (recv?.kind === "starlette-request") {
    if (method === "json") return src(node, "request", true, true);
    if (method === "body" || method === "form" || method === "stream")
      return src(node, "request", false, method === "form");
    return EMPTY;
  }
  if (recv?.kind === "django-request") {
    if (/^(?:get_full_path|build_absolute_uri|get_host|read)$/.test(method)) return src(node);
    return EMPTY;
  }
  if (recv?.meta?.whole && recv.flows.length) {
    if (method === "get" || method === "pop" || method === "setdefault") {
      const key = args[0]?.hasConst ? `[${JSON.stringify(args[0].c)}]` : "";
      const f = recv.flows[0]!;
      const v = sourceVal(
        "request",
        snippet(node, 50),
        { line: line(node), what: `${snippet(node, 50)}${key ? "" : ""}` },
        { structured: f.structured },
      );
      const dflt = args[1];
      return dflt ? join(v, dflt) : v;
    }
    if (method === "getlist" || method === "values" || method === "items" || method === "keys")
      return { flows: [], elems: src(node, "request", recv.flows[0]!.structured) };
    if (method === "to_dict" || method === "dict" || method === "copy") return recv;
  }
  if (recv?.kind === "environ" && method === "get")
    return join(sourceVal("env", snippet(node, 50), step(node)), args[1]);
  if (callee === "os.getenv") return join(sourceVal("env", snippet(node, 50), step(node)), args[1]);
  if (callee === "input" || callee === "raw_input") return src(node, "stdin");
  // argparse / optparse: every parsed option is a command-line argument.
  if (method === "parse_args" || method === "parse_known_args") return src(node, "argv", false, true);
  if (recv?.kind === "stdin") return src(node, "stdin");
  if (recv?.kind === "session") {
    if (method === "get") return field(recv, arg0.hasConst ? String(arg0.c) : "*");
    if (method === "update" || method === "setdefault") {
      a.sink("trust-boundary", joinAll(args), node, `session.${method}()`);
      return EMPTY;
    }
    return EMPTY;
  }

  // ---- files (low-trust contents) and paths
  if (recv?.kind === "file") {
    if (/^(?:read|readline|readlines|read_text|read_bytes)$/.test(method)) return src(node, "file");
    if (method === "write") return EMPTY;
    return EMPTY;
  }
  if (PATH_CALLS.test(callee)) {
    const target = callee.endsWith("Path") ? arg0 : (kw("file") ?? kw("path") ?? arg0);
    if (!/^(?:pathlib\.Path|Path)$/.test(callee)) a.sink("path", target, node, `${callee}()`, false);
    if (/^(?:pathlib\.Path|Path)$/.test(callee)) return { flows: stringify(joinAll(args)).flows, kind: "path-obj" };
    if (/open$/.test(callee)) return { ...src(node, "file"), kind: "file" };
    if (/^(?:numpy|np)\.load$/.test(callee) && /True/.test(kwText("allow_pickle")))
      a.sink("deserialization", arg0, node, `${callee}(allow_pickle=True)`);
    return EMPTY;
  }
  if (recv?.kind === "path-obj") {
    if (
      /^(?:read_text|read_bytes|open|write_text|write_bytes|unlink|rmdir|touch|mkdir|iterdir|exists|is_file)$/.test(
        method,
      )
    ) {
      a.sink("path", { flows: recv.flows }, node, `Path.${method}()`, false);
      if (method === "read_text" || method === "read_bytes") return src(node, "file");
      if (method === "open") return { flows: [], kind: "file" };
      return EMPTY;
    }
    if (method === "resolve" || method === "absolute" || method === "joinpath" || method === "with_name")
      return { ...recv, flows: mergeIn(recv, args) };
    return { flows: recv.flows, kind: "path-obj" };
  }
  if (
    /^(?:os\.path\.basename|werkzeug\.utils\.secure_filename|secure_filename|werkzeug\.security\.safe_join|werkzeug\.utils\.safe_join|flask\.safe_join|safe_join)$/.test(
      callee,
    )
  )
    return clean(stringify(joinAll(args)), ["path"]);
  if (/^(?:flask\.send_from_directory|send_from_directory)$/.test(callee)) return EMPTY;
  if (/^os\.path\.(?:join|abspath|realpath|normpath|expanduser|dirname|splitext|relpath)$/.test(callee))
    return stringify(joinAll(args));

  // ---- XSS
  if (XSS_RESPONSES.test(callee)) {
    const mimetype = kw("mimetype") ?? kw("content_type") ?? kw("media_type");
    const type = mimetype?.hasConst ? String(mimetype.c) : callee.endsWith("HTMLResponse") ? "text/html" : "";
    const body = kw("content") ?? kw("response") ?? arg0;
    const htmlDefault = !/fastapi\.responses\.Response$/.test(callee);
    if ((type ? /html/i.test(type) : htmlDefault) && !body.fields && !body.elems)
      a.sink("xss", body, node, `${callee}()`, false);
    return { flows: [], kind: "response" };
  }
  if (MARKUP.test(callee)) {
    a.sink("xss", arg0, node, `${callee}()`, false);
    return EMPTY;
  }
  if (/^(?:flask\.render_template_string|render_template_string)$/.test(callee)) {
    a.sink("template", arg0, node, `${callee}()`, false);
    const tpl = arg0.hasConst ? String(arg0.c) : (arg0.frag ?? "");
    if (/\|\s*safe\b|autoescape\s+false/i.test(tpl)) {
      for (const [k, v] of kwargs)
        if (new RegExp(`\\b${k}\\b[^}]*\\|\\s*safe|autoescape\\s+false`, "i").test(tpl))
          a.sink("xss", v, node, `{{ ${k}|safe }}`);
    }
    return EMPTY;
  }
  if (
    /^(?:flask\.render_template|render_template|django\.shortcuts\.render|render|jinja2\.Template|Template|jinja2\.Environment\(\)\.from_string|mako\.template\.Template)$/.test(
      callee,
    ) ||
    method === "from_string"
  ) {
    if (/Template$|from_string$/.test(callee)) a.sink("template", arg0, node, `${callee}()`, false);
    else if (/^(?:flask\.render_template|render_template)$/.test(callee))
      a.sink("path", arg0, node, `${callee}() template name`, false);
    return EMPTY;
  }
  if (HTML_ESCAPES.test(callee)) return clean(stringify(arg0), ["xss"]);
  if (
    /^(?:flask\.jsonify|jsonify|json\.dumps|django\.http\.JsonResponse|JsonResponse|JSONResponse|fastapi\.responses\.JSONResponse)$/.test(
      callee,
    )
  )
    return callee.endsWith("dumps")
      ? stringify(joinAll([...args, ...kwargs.values()]))
      : { flows: [], kind: "response" };
  if (/^(?:flask\.url_for|url_for|django\.urls\.reverse|reverse)$/.test(callee)) return EMPTY;

  // ---- responses: headers and cookies
  if (method === "set_cookie") {
    a.sink("weak-random", kw("value") ?? args[1], node, "cookie value");
    const secure = /True/.test(kwText("secure"));
    const httpOnly = /True/.test(kwText("httponly"));
    const missing = [secure ? null : "Secure", httpOnly ? null : "HttpOnly"].filter(Boolean);
    if (missing.length) a.config("cookie", node, `set_cookie() without ${missing.join(" and ")}`);
    return EMPTY;
  }

  // ---- redirects
  if (REDIRECTS.test(callee)) {
    a.sink("redirect", kw("url") ?? kw("to") ?? arg0, node, `${callee}()`);
    return { flows: [], kind: "response" };
  }

  // ---- command
  if (
    /^(?:os\.system|os\.popen|commands\.getoutput|commands\.getstatusoutput|subprocess\.getoutput|subprocess\.getstatusoutput|asyncio\.create_subprocess_shell|os\.popen2|os\.popen3|popen2\.popen2)$/.test(
      callee,
    )
  ) {
    a.sink("command", arg0, node, `${callee}()`);
    return callee.startsWith("os.popen") ? { flows: [], kind: "file" } : EMPTY;
  }
  if (/^(?:subprocess\.(?:call|run|Popen|check_output|check_call)|asyncio\.create_subprocess_exec)$/.test(callee)) {
    const cmd = kw("args") ?? arg0;
    const shell = /True/.test(kwText("shell"));
    if (shell) a.sink("command", cmd, node, `${callee}(shell=True)`);
    else if (cmd.fields || cmd.elems)
      a.sink("command", cmd.fields?.get("0") ?? element(cmd), node, `${callee}() program`, false);
    else if (callee === "asyncio.create_subprocess_exec") a.sink("command", arg0, node, `${callee}() program`, false);
    else a.sink("command", cmd, node, `${callee}() program`, false);
    return EMPTY;
  }
  if (/^os\.(?:exec[lv]p?e?|spawn[lv]p?e?)$/.test(callee)) {
    a.sink("command", /spawn/.test(callee) ? args[1] : arg0, node, `${callee}()`, false);
    return EMPTY;
  }
  if (/^(?:shlex\.quote|pipes\.quote)$/.test(callee)) return clean(stringify(arg0), ["command"]);
  if (callee === "shlex.split") return { flows: [], elems: stringify(arg0) };

  // ---- code
  if (/^(?:eval|exec|compile|builtins\.eval|builtins\.exec)$/.test(callee)) {
    a.sink("code", arg0, node, `${callee}()`);
    return EMPTY;
  }
  if (callee === "ast.literal_eval") return stringify(arg0);

  // ---- deserialization
  if (DESERIALIZERS.test(callee)) {
    a.sink("deserialization", arg0, node, `${callee}()`);
    return EMPTY;
  }
  if (/^yaml\.(?:load|load_all)$/.test(callee)) {
    const loader = site.kwargNodes.get("Loader")?.text ?? site.argNodes[1]?.text ?? "";
    if (!/SafeLoader|CSafeLoader|BaseLoader/.test(loader)) a.sink("deserialization", arg0, node, `${callee}()`);
    return { flows: deepFlows(arg0).map((f) => ({ ...f, structured: true })) };
  }
  if (
    /^(?:yaml\.safe_load|yaml\.safe_load_all|json\.loads?|tomllib\.loads?|ujson\.loads|orjson\.loads)$/.test(callee)
  ) {
    const flows = recv?.kind === "file" ? src(node, "file").flows : deepFlows(arg0);
    return { flows: flows.map((f) => ({ ...f, structured: true })) };
  }

  // ---- template engines with HTML escaping off (a setting: reported whatever the data)
  if (/^(?:jinja2\.Environment|jinja2\.Template|jinja2\.environment\.Environment)$/.test(callee)) {
    const autoescape = kwText("autoescape");
    const loader = kwText("loader");
    if (/^(?:False|None|0)$/.test(autoescape) || (!autoescape && /Loader\(/.test(loader)))
      a.config(
        "autoescape",
        node,
        `${callee}() ${autoescape ? `with autoescape=${autoescape}` : "without autoescape"}`,
      );
    return EMPTY;
  }

  // ---- XML
  if (/^(?:lxml\.etree|etree)\.XMLParser$/.test(callee)) {
    const unsafe =
      /True/.test(kwText("resolve_entities")) ||
      /True/.test(kwText("load_dtd")) ||
      /False/.test(kwText("no_network")) ||
      !site.kwargNodes.has("resolve_entities");
    return { flows: [], kind: "xml-parser", meta: { unsafe: unsafe ? "1" : "" } };
  }
  if (/^(?:lxml\.etree|etree)\.(?:fromstring|XML|parse|iterparse|fromstringlist)$/.test(callee)) {
    const parser = kw("parser") ?? args[1];
    const unsafe = parser
      ? parser.kind === "xml-parser" && parser.meta?.unsafe === "1"
      : /^\s*from\s+lxml\b|^\s*import\s+lxml\b/m.test(a.ctx.source);
    if (unsafe) a.sink("xxe", arg0, node, `${callee}() with entity resolution on`);
    return { flows: deepFlows(arg0), kind: "xml-tree" };
  }
  if (/^xml\.sax\.make_parser$/.test(callee)) return { flows: [], kind: "sax-parser", meta: {} };
  if (recv?.kind === "sax-parser") {
    if (
      method === "setFeature" &&
      /external_ges|external_pes/.test(site.argNodes[0]?.text ?? "") &&
      /True|1/.test(site.argNodes[1]?.text ?? "")
    )
      recv.meta = { ...recv.meta, unsafe: "1" };
    if (method === "parse" && recv.meta?.unsafe) a.sink("xxe", arg0, node, "SAX parser with external entities on");
    return EMPTY;
  }
  if (
    /^(?:xml\.etree\.ElementTree|ElementTree|ET|defusedxml\.ElementTree|xml\.dom\.minidom|minidom)\.(?:fromstring|parse|parseString|XML)$/.test(
      callee,
    )
  )
    return { flows: deepFlows(arg0), kind: "xml-tree" };

  // ---- XPath
  if (method === "xpath" || /^(?:lxml\.etree|etree)\.XPath$/.test(callee) || /^elementpath\.select$/.test(callee)) {
    const expr = callee.startsWith("elementpath") ? args[1] : arg0;
    if (!(expr?.fields || expr?.elems)) a.sink("xpath", expr, node, `${callee}()`, false);
    return { flows: [], kind: "xml-tree" };
  }
  if (recv?.kind === "xml-tree" && /^(?:find|findall|findtext|iterfind)$/.test(method)) {
    a.sink("xpath", arg0, node, `${callee}()`, false);
    return EMPTY;
  }
  if (recv?.kind === "xml-tree" && /^(?:getroot|getroottree)$/.test(method)) return recv;

  // ---- LDAP
  if (
    /^(?:ldap\.filter\.escape_filter_chars|escape_filter_chars|ldap3\.utils\.conv\.escape_filter_chars|ldap\.filter\.filter_format|filter_format|ldap\.dn\.escape_dn_chars|escape_dn_chars)$/.test(
      callee,
    )
  )
    return clean(stringify(joinAll(args)), ["ldap"]);
  if (/^(?:search_s|search_st|search_ext|search_ext_s|search)$/.test(method) && /\bldap3?\b/.test(a.ctx.source)) {
    const ldap3 = /^\s*(?:from|import)\s+ldap3\b/m.test(a.ctx.source) && method === "search";
    const filter = kw("search_filter") ?? kw("filterstr") ?? (ldap3 ? args[1] : args[2]);
    a.sink("ldap", filter, node, `${callee}() filter`, false);
    a.sink("ldap", kw("search_base") ?? kw("base") ?? arg0, node, `${callee}() base`, false);
    return EMPTY;
  }

  // ---- SSRF
  if (
    HTTP_CLIENT.test(callee) ||
    (recv?.kind === "http-client" && /^(?:get|post|put|patch|delete|head|request|stream)$/.test(method))
  ) {
    const url = kw("url") ?? (method === "request" ? args[1] : arg0);
    a.sink("ssrf", url, node, `${callee}()`, false);
    if (/Request$/.test(callee)) return { flows: [], kind: "http-request-obj", meta: {} };
    return EMPTY;
  }
  if (
    /^(?:requests\.Session|httpx\.Client|httpx\.AsyncClient|aiohttp\.ClientSession|urllib3\.PoolManager)$/.test(callee)
  )
    return { flows: [], kind: "http-client" };
  if (/^(?:http\.client\.HTTPConnection|http\.client\.HTTPSConnection)$/.test(callee)) {
    a.sink("ssrf", arg0, node, `${callee}()`, false);
    return EMPTY;
  }

  // ---- SQL
  if (
    /^(?:sqlalchemy\.text|text|sqlalchemy\.sql\.text|django\.db\.models\.expressions\.RawSQL|RawSQL)$/.test(callee) &&
    (arg0.frag ? SQL_WORDS.test(arg0.frag) : true)
  ) {
    a.sink("sql", arg0, node, `${callee}()`, false);
    return EMPTY;
  }
  if (recv && !recv.kind && SQL_METHODS.test(method)) {
    const sql = kw("sql") ?? kw("query") ?? arg0;
    if (!sql.fields && (!sql.frag || SQL_WORDS.test(sql.frag))) a.sink("sql", sql, node, `${callee}()`, false);
    return EMPTY;
  }
  if (recv && method === "extra") {
    for (const k of ["where", "select", "tables", "order_by"]) {
      const v = kw(k);
      if (v) a.sink("sql", v, node, `${callee}(${k}=…)`);
    }
    return EMPTY;
  }

  // ---- NoSQL (pymongo)
  if (recv && !recv.kind && NOSQL_METHODS.test(method) && arg0 !== EMPTY) {
    nosqlCheck(a, arg0, node, callee);
    return EMPTY;
  }

  // ---- crypto and randomness
  if (
    /^hashlib\.(?:md5|sha1|md4)$/.test(callee) ||
    (callee === "hashlib.new" && /^["'](?:md5|sha1|md4)["']/i.test(site.argNodes[0]?.text ?? ""))
  ) {
    const data = callee === "hashlib.new" ? args[1] : arg0;
    if (data) a.sink("weak-hash", data, node, callee);
    return { flows: [], kind: "weak-hash" };
  }
  if (recv?.kind === "weak-hash") {
    if (method === "update") a.sink("weak-hash", arg0, node, "weak hash update()");
    return EMPTY;
  }
  if (/^random\.(?:random|randint|choice|choices|randrange|getrandbits|sample|uniform|shuffle)$/.test(callee))
    return sourceVal("random", `${callee}()`, step(node));

  // ---- conversions and string building
  if (CONVERSIONS.test(callee)) return EMPTY;
  // filter(str.isalnum, s): only the characters the predicate allows remain (an allow-list).
  if (
    callee === "filter" &&
    /^str\.is(?:alnum|alpha|digit|decimal|numeric|ascii_letters)$/.test(site.argNodes[0]?.text ?? "")
  )
    return { flows: [], elems: EMPTY };
  if (callee === "str" || callee === "repr" || callee === "format") return stringify(arg0);
  if (
    callee === "urllib.parse.quote" ||
    callee === "quote" ||
    callee === "urllib.parse.quote_plus" ||
    callee === "quote_plus"
  ) {
    const safe = kw("safe") ?? args[1];
    const slashKept = !safe || (safe.hasConst && String(safe.c).includes("/"));
    return clean(
      stringify(arg0),
      slashKept ? ["xss", "command", "nosql", "sql"] : ["xss", "command", "nosql", "sql", "path", "redirect"],
    );
  }
  if (/^(?:urllib\.parse\.urlparse|urlparse|urllib\.parse\.urlsplit|urlsplit)$/.test(callee))
    return { flows: deepFlows(arg0) };
  if (recv && recv.hasConst && method === "format")
    return concat([recv, ...args, ...kwargs.values()].map((v) => stringify(v)));
  if (recv && method === "join" && recv.hasConst) return stringify(joinAll([element(arg0), arg0]));
  if (recv && /^(?:append|add|insert|extend)$/.test(method) && !recv.kind) {
    const v = method === "insert" ? args[1] : method === "extend" ? element(arg0) : arg0;
    if (v) pushElement(recv, v, method === "append");
    return EMPTY;
  }
  if (recv && method === "update" && !recv.kind && arg0.fields) {
    for (const [k, v] of arg0.fields) setField(recv, k, v);
    return EMPTY;
  }
  if (recv && method === "get" && !recv.kind && (recv.fields || recv.elems) && !recv.flows.length) {
    const v = arg0.hasConst ? field(recv, String(arg0.c)) : element(recv);
    return args[1] ? join(v, args[1]) : v;
  }
  if (recv && /^(?:startswith|endswith|isdigit|isalnum|isalpha|isnumeric|count|find|index|rfind)$/.test(method))
    return EMPTY;
  if (recv && /^(?:replace)$/.test(method)) return replaceModel(site, recv);
  if (callee === "re.sub" && args[2]) {
    const pattern = site.argNodes[0]?.text.replace(/^[rbu]*["']|["']$/gi, "") ?? "";
    const repl = args[1];
    const base = stringify(args[2]);
    if (/^\[\^[\w\\\-. ]*\][+*]?$/.test(pattern) && repl?.hasConst)
      return clean(
        base,
        /\\\.|\./.test(pattern.slice(2, -1)) ? ["xss", "sql", "command", "nosql", "ldap", "xpath", "code"] : "all",
      );
    return base;
  }
  return undefined;
}

function mergeIn(recv: Val, args: Val[]) {
  return stringify(joinAll([recv, ...args])).flows;
}

function nosqlCheck(a: PyAnalyzer, filter: Val, node: Node, callee: string): void {
  if (filter.fields) {
    for (const [k, v] of filter.fields) {
      if (k === "$where" || k === "$function")
        a.sink("nosql", { flows: deepFlows(v).map((f) => ({ ...f, structured: true })) }, node, `${callee}() $where`);
      else if (v.fields) nosqlCheck(a, v, node, callee);
      else a.sink("nosql", v, node, `${callee}() filter`, false);
    }
    return;
  }
  a.sink("nosql", filter, node, `${callee}() filter`, false);
}

function replaceModel(site: PyCall, recv: Val): Val {
  const base = stringify(join(recv, site.args[1] ?? EMPTY));
  const from = site.args[0];
  const to = site.args[1];
  if (from?.hasConst && to?.hasConst && /^[<>]$/.test(String(from.c)) && !/[<>]/.test(String(to.c))) return base;
  return base;
}

export { constant };
