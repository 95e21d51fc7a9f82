/**
 * What Express, Koa, Fastify, Next.js and Node's libraries do with data, for the JS interpreter:
 * which members and calls are sources (request fields, argv, env, stdin, file reads), which calls
 * are sinks of which weakness, which calls sanitise (for which weaknesses), and how responses
 * remember their content type (a text/plain response is not an XSS).
 */
import type { Node } from "../../../treesitter.ts";
import type { Env } from "../analyzer.ts";
import { SQL_WORDS } from "../../rules/sql.ts";
import {
  addElement,
  clean,
  pushElement,
  deepFlows,
  element,
  EMPTY,
  field,
  join,
  joinAll,
  line,
  numeric,
  setField,
  snippet,
  sourceVal,
  stringify,
  type Origin,
  type Val,
  type Weakness,
} from "../values.ts";
import type { JsAnalyzer } from "./interp.ts";

export interface JsCall {
  node: Node;
  calleeNode: Node;
  /** Canonical callee: a module path when known ("child_process.exec"), else the text ("db.query"). */
  callee: string;
  /** The callee's value (a compiled template, a function …). */
  calleeVal?: Val;
  method: string;
  recv?: Val;
  recvNode?: Node;
  args: Val[];
  argNodes: Node[];
  isNew: boolean;
  tagged: boolean;
  env: Env;
}

export interface Modelled {
  result?: Val;
  /** Values each callback argument receives, by argument index. */
  callbackArgs?: (Val[] | undefined)[];
}

const step = (n: Node) => ({ line: line(n), what: snippet(n, 50) });

function src(n: Node, origin: Origin = "request", opts: { structured?: boolean; whole?: boolean } = {}): Val {
  const v = sourceVal(origin, snippet(n, 50), step(n), { structured: opts.structured ?? false });
  return opts.whole ? { ...v, meta: { whole: "1" } } : v;
}

// ---- handlers ------------------------------------------------------------------------------------

const REQ_NAMES = /^_?(?:req|request|httpRequest|incoming)$/;
const RES_NAMES = /^_?(?:res|response|resp|httpResponse|outgoing)$/;
const HTTP_VERBS = /^(?:GET|POST|PUT|PATCH|DELETE|HEAD|OPTIONS)$/;

const request = (kind = "req"): Val => ({ flows: [], kind, fields: new Map() });
const response = (kind = "res"): Val => ({ flows: [], kind, meta: {} });

/** Request/response values for a function whose parameters look like a route handler's (else []). */
export function handlerParams(names: string[], fnName: string, koa = false): (Val | undefined)[] {
  const [a, b, c] = names;
  if (HTTP_VERBS.test(fnName) && a !== undefined) {
    // Next.js route handler: (request, { params })
    const ctxVal: Val = { flows: [], fields: new Map([["params", sourceParams(fnName)]]) };
    return [request("fetch-request"), ctxVal];
  }
  if (a === "err" || a === "error") {
    if (b && REQ_NAMES.test(b) && c && RES_NAMES.test(c)) return [undefined, request(), response()];
    return [];
  }
  if (a && REQ_NAMES.test(a) && b && (RES_NAMES.test(b) || b === "reply" || b === "h"))
    return [request(), response(b === "reply" ? "reply" : "res")];
  if (koa && a && /^(?:ctx|context)$/.test(a) && names.length <= 2) return [request("koa")];
  return [];
}

function sourceParams(fnName: string): Val {
  return {
    ...sourceVal("request", "route params", { line: 0, what: `route params of ${fnName}` }),
    meta: { whole: "1" },
  };
}

/** `app.get("/x", handler)`, `router.post(…)`, `fastify.route({ handler })`, `app.use(…)`. */
export function isRouteRegistration(site: JsCall): boolean {
  return (
    /^(?:get|post|put|patch|delete|del|all|use|head|options|route|any)$/.test(site.method) &&
    site.args.some((a) => a.fn) &&
    !!site.recvNode &&
    !/^(?:Promise|Array|Object|Map|Set|axios|http|https|fetch|got|needle|request|superagent|undici|ky|cache|client|redis)$/.test(
      site.recvNode.text,
    )
  );
}

function routeHandlerArgs(a: JsAnalyzer, site: JsCall): (Val[] | undefined)[] {
  return site.args.map((arg) => {
    if (!arg.fn) return undefined;
    const names = paramNames(arg.fn.node);
    const special = handlerParams(names, "", true);
    if (special.length) return special.map((v) => v ?? EMPTY);
    // Unknown names, registered as a handler: (request, response, next).
    if (names[0] && /^(?:ctx|context)$/.test(names[0])) return [request("koa")];
    return [request(), response(names[1] === "reply" ? "reply" : "res")];
  });
}

function paramNames(fn: Node): string[] {
  const params = fn.childForFieldName("parameters");
  const list = params ? params.namedChildren : [fn.childForFieldName("parameter")];
  return list
    .filter((p): p is Node => !!p)
    .map((p) => {
      const inner = p.childForFieldName("pattern") ?? p;
      return inner.type === "identifier" ? inner.text : "";
    });
}

// ---- members -------------------------------------------------------------------------------------

const REQ_SOURCES: Record<string, { structured: boolean; whole: boolean }> = {
  query: { structured: true, whole: true },
  body: { structured: true, whole: true },
  params: { structured: false, whole: true },
  cookies: { structured: false, whole: true },
  signedCookies: { structured: false, whole: true },
  headers: { structured: false, whole: true },
  files: { structured: true, whole: true },
  file: { structured: true, whole: true },
  url: { structured: false, whole: false },
  originalUrl: { structured: false, whole: false },
  path: { structured: false, whole: false },
  rawBody: { structured: false, whole: false },
  querystring: { structured: false, whole: false },
  search: { structured: false, whole: false },
  href: { structured: false, whole: false },
};

export function memberModel(a: JsAnalyzer, obj: Val, prop: string, node: Node, env: Env): Val | undefined {
  void env;
  void a;
  if (obj.meta?.whole && obj.flows.length) {
    // req.query.name: a source of its own, named as written.
    const f = obj.flows[0]!;
    return sourceVal(f.origin, snippet(node, 50), step(node), { structured: f.structured });
  }
  switch (obj.kind) {
    case "req": {
      if (prop === "session") return session(obj);
      if (prop === "raw" || prop === "req") return obj;
      const s = REQ_SOURCES[prop];
      if (s && prop !== "querystring" && prop !== "href" && prop !== "search") return src(node, "request", s);
      return undefined;
    }
    case "koa": {
      if (prop === "request") return { flows: [], kind: "koa-request" };
      if (prop === "req") return request();
      if (prop === "res" || prop === "response") return obj;
      if (prop === "session") return session(obj);
      if (prop === "cookies") return { flows: [], kind: "cookie-jar" };
      if (prop === "body") return obj.fields?.get("body") ?? EMPTY;
      const s = REQ_SOURCES[prop];
      if (s && prop !== "file" && prop !== "files" && prop !== "rawBody") return src(node, "request", s);
      if (prop === "header") return src(node, "request", { structured: false, whole: true });
      return undefined;
    }
    case "koa-request": {
      const s = REQ_SOURCES[prop];
      if (s) return src(node, "request", s);
      if (prop === "header") return src(node, "request", { structured: false, whole: true });
      return undefined;
    }
    case "fetch-request":
      if (prop === "url") return src(node);
      if (prop === "nextUrl") return { ...src(node), kind: "url" };
      if (prop === "headers") return { flows: [], kind: "headers" };
      if (prop === "cookies") return { flows: [], kind: "cookie-store" };
      if (prop === "body") return src(node, "request", { structured: true });
      return undefined;
    case "url":
      if (prop === "searchParams") return { flows: obj.flows, kind: "search-params" };
      return obj.flows.length ? { flows: obj.flows } : undefined;
    case "module":
      if (obj.path === "process") {
        if (prop === "argv") return { flows: [], elems: src(node, "argv") };
        if (prop === "env") return { flows: [], kind: "env" };
        if (prop === "stdin") return { flows: [], kind: "stdin" };
      }
      return undefined;
    case "env":
      return sourceVal("env", snippet(node, 50), step(node));
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

/** Writes with a meaning: `ctx.body = …` (the response), `req.session.x = …`, `el.innerHTML = …`. */
export function assignModel(a: JsAnalyzer, obj: Val, key: string | undefined, v: Val, node: Node): void {
  if (obj.kind === "session") a.sink("trust-boundary", v, node, "session store");
  if (obj.kind === "koa" && key === "body") {
    const type = obj.meta?.type;
    if ((!type || /html/i.test(type)) && !v.fields && !v.meta?.whole) a.sink("xss", v, node, "ctx.body", false);
  }
  if (obj.kind === "koa" && key === "type") {
    obj.meta = { ...obj.meta, type: v.hasConst ? String(v.c) : "unknown" };
  }
  if (obj.kind === "koa" && key === "status") return;
  if ((key === "innerHTML" || key === "outerHTML") && !obj.kind) a.sink("xss", v, node, key, false);
  if (key === "escape" && obj.kind === "module" && /^(?:mustache|handlebars|hbs)$/i.test(obj.path ?? "") && v.fn)
    a.config("autoescape", node, `${obj.path}.escape replaced`);
  if (key === "location" || key === "href") {
    if (obj.kind === "module" && /^(?:window|document)(?:\.location)?$/.test(obj.path ?? ""))
      a.sink("redirect", v, node, "location");
  }
}

// ---- calls ---------------------------------------------------------------------------------------

const SQL_STRONG = /^(?:query|execute|raw|\$queryRawUnsafe|\$executeRawUnsafe|unsafe|sql)$/;
const SQL_WEAK = /^(?:exec|run|all|get|prepare|each|many|one|none|oneOrNone|any)$/;
const NOSQL_METHODS =
  /^(?:find|findOne|findOneAndUpdate|findOneAndDelete|findOneAndReplace|findOneAndRemove|updateOne|updateMany|deleteOne|deleteMany|replaceOne|countDocuments|count|aggregate|distinct|where|remove|update|exists)$/;
const FS_PATH =
  /^fs(?:-extra)?\.(?:promises\.)?(?:readFile|readFileSync|createReadStream|writeFile|writeFileSync|createWriteStream|appendFile|appendFileSync|unlink|unlinkSync|rm|rmSync|rmdir|readdir|readdirSync|open|openSync|stat|statSync|access|accessSync|copyFile|copyFileSync|rename|renameSync|mkdir|mkdirSync|existsSync|readJson|readJsonSync|outputFile|remove|lstat|opendir)$/;
const TEMPLATE_COMPILERS =
  /^(?:ejs\.(?:render|compile)|pug\.(?:render|compile)|jade\.(?:render|compile)|handlebars\.compile|Handlebars\.compile|nunjucks\.renderString|lodash\.template|lodash\.template|underscore\.template|_\.template|mustache\.render|Mustache\.render|dot\.template|doT\.template|eta\.renderString|liquidjs\.parseAndRender|twig\.twig|hbs\.compile)$/;
const HTTP_CLIENT =
  /^(?:fetch|node-fetch|undici\.(?:fetch|request)|axios|axios\.(?:get|post|put|patch|delete|head|request|options)|got|got\.(?:get|post|put|patch|delete|head|stream)|request|request\.(?:get|post)|superagent\.(?:get|post|put|delete)|needle|needle\.(?:get|post|request)|http\.(?:get|request)|https\.(?:get|request)|ky|ky\.(?:get|post))$/;
const XSS_SANITIZER =
  /^(?:escape-html|he\.(?:encode|escape)|validator\.escape|lodash\.escape|_\.escape|underscore\.escape|xss|xss\.filterXSS|filterXSS|sanitize-html|dompurify\.sanitize|DOMPurify\.sanitize|isomorphic-dompurify\.sanitize|escapeHtml|escapeHTML|htmlEscape|encodeHTML|encodeHtml|sanitizeHtml|entities\.encode|html-entities\.encode|encode)$/;

/** A receiver that may be a database handle: nothing the model knows as something else. */
function plainReceiver(recv: Val | undefined): boolean {
  if (!recv) return false;
  if (!recv.kind || recv.kind === "local-import") return true;
  return (
    recv.kind === "module" &&
    !/^(?:fs|path|child_process|crypto|os|url|http|https|util|process|JSON|Math|Object|Array|String|Number|Reflect|console|Promise|Date|express|koa|fastify)\b/.test(
      recv.path ?? "",
    )
  );
}

function modulePathOf(site: JsCall): string {
  return site.callee.replace(/^fs\.promises\./, "fs.").replace(/^promises\./, "fs.");
}

export function callModel(a: JsAnalyzer, site: JsCall): Modelled | undefined {
  const { method, recv, args, node } = site;
  const name = modulePathOf(site);
  const arg0 = args[0] ?? EMPTY;

  // require("x")
  if (name === "require" || site.calleeNode.text === "require") {
    const spec = arg0.hasConst ? String(arg0.c) : "";
    if (spec.startsWith(".")) return { result: { flows: [], kind: "local-import", path: `${spec}#*` } };
    return { result: { flows: [], kind: "module", path: spec.replace(/^node:/, "").replace(/\/promises$/, "") } };
  }

  if (isRouteRegistration(site)) return { result: recv ?? EMPTY, callbackArgs: routeHandlerArgs(a, site) };
  if (/^(?:http|https|http2)\.(?:createServer|createSecureServer)$/.test(name))
    return { result: EMPTY, callbackArgs: args.map((x) => (x.fn ? [request(), response()] : undefined)) };

  // ---- request objects
  if (recv?.kind === "req") {
    if (method === "get" || method === "header" || method === "param") return { result: src(node) };
    if (method === "on" && args[1]?.fn) return { callbackArgs: [undefined, [src(node)]] };
    return { result: EMPTY };
  }
  if (recv?.kind === "koa") return koaCall(a, site);
  if (recv?.kind === "koa-request") {
    if (method === "get") return { result: src(node) };
    return { result: EMPTY };
  }
  if (recv?.kind === "cookie-jar") {
    if (method === "get") return { result: src(node) };
    if (method === "set") {
      cookieCheck(a, site, args[2], "koa");
      return { result: EMPTY };
    }
  }
  if (recv?.kind === "fetch-request") {
    if (method === "json") return { result: src(node, "request", { structured: true, whole: true }) };
    if (method === "text" || method === "arrayBuffer" || method === "blob") return { result: src(node) };
    if (method === "formData") return { result: { ...src(node), kind: "form-data" } };
    return { result: EMPTY };
  }
  if (recv?.kind === "headers" || recv?.kind === "search-params" || recv?.kind === "form-data") {
    if (method === "get" || method === "getAll")
      return { result: recv.kind === "headers" ? src(node) : recv.flows.length ? { flows: recv.flows } : src(node) };
    if (method === "has") return { result: EMPTY };
    if (method === "set" && recv.kind === "headers") return { result: EMPTY };
    return { result: EMPTY };
  }
  if (recv?.kind === "cookie-store") {
    if (method === "get") return { result: { flows: [], fields: new Map([["value", src(node)]]) } };
    if (method === "set") {
      const opts = args[0]?.fields ? args[0] : args[2];
      cookieCheck(a, site, opts, "next");
      return { result: EMPTY };
    }
    return { result: EMPTY };
  }
  if (recv?.kind === "stdin" && method === "on") return { callbackArgs: [undefined, [src(node, "stdin")]] };
  if (recv?.kind === "session") return { result: recv };

  // ---- responses
  if (recv?.kind === "res") return responseCall(a, site, recv);
  if (recv?.kind === "reply") return replyCall(a, site, recv);

  // ---- Next.js
  if (/^next\/headers\.cookies$/.test(name) || (name === "cookies" && !args.length))
    return { result: { flows: [], kind: "cookie-store" } };
  if (/^next\/headers\.headers$/.test(name)) return { result: { flows: [], kind: "headers" } };
  if (
    /^(?:next\/navigation\.(?:redirect|permanentRedirect)|NextResponse\.redirect|Response\.redirect|next\/server\.NextResponse\.redirect)$/.test(
      name,
    )
  ) {
    a.sink("redirect", arg0, node, `${site.callee}()`);
    return { result: EMPTY };
  }
  if (site.isNew && /^(?:Response|NextResponse|next\/server\.NextResponse)$/.test(name)) {
    const headers = args[1]?.fields?.get("headers");
    const type = headerValue(headers, "content-type");
    if (type && /html/i.test(type)) a.sink("xss", arg0, node, `new ${site.callee}()`, false);
    return { result: EMPTY };
  }
  if (site.isNew && name === "URL") {
    const [u, base] = args;
    if (u?.hasConst) {
      const local = typeof u.c === "string" && /^\/(?![/\\])/.test(u.c);
      return { result: { ...(local && base ? clean(base, ["redirect", "ssrf"]) : EMPTY), kind: "url" } };
    }
    return { result: { flows: deepFlows(u ?? EMPTY), kind: "url" } };
  }
  if (site.isNew && name === "URLSearchParams") return { result: { flows: deepFlows(arg0), kind: "search-params" } };

  // ---- code
  if (
    name === "eval" ||
    name === "Function" ||
    /^vm\.(?:runInNewContext|runInThisContext|runInContext|compileFunction|Script)$/.test(name)
  ) {
    const code = name === "Function" ? args[args.length - 1] : arg0;
    a.sink("code", code, node, `${site.callee}()`);
    return { result: EMPTY };
  }
  if (/^(?:setTimeout|setInterval|setImmediate)$/.test(name)) {
    if (!arg0.fn) a.sink("code", arg0, node, `${site.callee}()`);
    return { callbackArgs: [[]] };
  }

  // ---- command
  if (
    /^child_process\.(?:exec|execSync)$/.test(name) ||
    /^shelljs\.exec$/.test(name) ||
    name === "execa.command" ||
    name === "execa.commandSync"
  ) {
    a.sink("command", arg0, node, `${site.callee}()`);
    return { result: EMPTY, callbackArgs: args.map((x, i) => (x.fn && i > 0 ? [EMPTY, EMPTY, EMPTY] : undefined)) };
  }
  if (/^child_process\.(?:spawn|spawnSync|execFile|execFileSync|fork)$/.test(name) || /^execa(?:\.sync)?$/.test(name)) {
    a.sink("command", arg0, node, `${site.callee}()`, false);
    const opts = args.find((x, i) => i > 0 && x.fields && !x.elems);
    if (opts && truthy(opts.fields?.get("shell")))
      a.sink("command", args[1], node, `${site.callee}() with shell: true`);
    return { result: EMPTY, callbackArgs: args.map((x, i) => (x.fn && i > 0 ? [EMPTY, EMPTY, EMPTY] : undefined)) };
  }

  // ---- files
  if (FS_PATH.test(name)) {
    a.sink("path", arg0, node, `${site.callee}()`, false);
    const read = /read/i.test(name);
    const contents = read ? src(node, "file") : EMPTY;
    const cbIndex = args.findIndex((x) => x.fn);
    const callbackArgs = args.map((_, i) => (i === cbIndex ? [EMPTY, contents] : undefined));
    return {
      result: /Sync$|promises/.test(site.callee) || /readJson|readFile$/.test(name) ? contents : EMPTY,
      callbackArgs,
    };
  }
  if (name === "path.basename") return { result: clean(stringify(arg0), ["path"]) };
  if (/^path\.(?:join|resolve|normalize|relative|dirname|extname|format|posix\.join)$/.test(name))
    return { result: stringify(joinAll(args)) };
  if (name === "sanitize-filename") return { result: clean(stringify(arg0), ["path"]) };

  // ---- templates
  if (site.calleeVal?.kind === "compiled-template") return { result: rendered(site.calleeVal.meta?.raw === "1", args) };
  if (TEMPLATE_COMPILERS.test(name)) {
    a.sink("template", arg0, node, `${site.callee}()`, false);
    const raw = rawOutput(name, arg0, args[1]);
    if (raw === "config") a.config("autoescape", node, `${site.callee}() with noEscape: true`);
    if (/compile|template$|twig$/.test(name))
      return { result: { flows: [], kind: "compiled-template", meta: { raw: raw ? "1" : "" } } };
    return { result: rendered(!!raw, args.slice(1)) };
  }
  if (
    /^(?:nunjucks\.configure|swig\.setDefaults)$/.test(name) ||
    (site.isNew && /^(?:nunjucks\.Environment|swig\.Swig)$/.test(name))
  ) {
    const opts = args.find((x) => x.fields?.has("autoescape"));
    if (opts?.fields?.get("autoescape")?.c === false)
      a.config("autoescape", node, `${site.callee}() with autoescape: false`);
    return { result: { flows: [], fields: new Map() } };
  }

  // ---- deserialization
  if (
    /^(?:node-serialize\.unserialize|serialize-to-js\.deserialize|funcster\.deepDeserialize|cryo\.parse)$/.test(name)
  ) {
    a.sink("deserialization", arg0, node, `${site.callee}()`);
    return { result: EMPTY };
  }

  // ---- XML
  if (/^libxmljs2?\.(?:parseXml|parseXmlString|parseXmlAsync)$/.test(name)) {
    if (truthy(args[1]?.fields?.get("noent"))) a.sink("xxe", arg0, node, `${site.callee}() with noent: true`);
    return { result: EMPTY };
  }

  // ---- XPath
  if (/^xpath\.(?:select|select1|evaluate|parse|useNamespaces)$/.test(name) || /^document\.evaluate$/.test(name)) {
    a.sink("xpath", arg0, node, `${site.callee}()`);
    return { result: EMPTY };
  }

  // ---- LDAP
  if (/^ldapjs\.createClient$/.test(name)) return { result: { flows: [], kind: "ldap-client" } };
  if (recv?.kind === "ldap-client" && method === "search") {
    a.sink("ldap", args[0], node, "ldap search base");
    const opts = args[1];
    a.sink("ldap", opts?.fields ? opts.fields.get("filter") : opts, node, `${site.callee}()`);
    return { result: EMPTY, callbackArgs: args.map((x) => (x.fn ? [EMPTY, EMPTY] : undefined)) };
  }
  if (
    /^(?:ldap-escape\.filter|ldap-escape\.dn|ldapEscape\.filter|ldapEscape\.dn|escapeLdap|escapeLDAP|escapeFilter)$/.test(
      name,
    )
  )
    return { result: clean(stringify(site.tagged ? EMPTY : joinAll(args)), ["ldap"]) };

  // ---- SSRF
  if (name === "axios.create") {
    a.sink("ssrf", arg0.fields?.get("baseURL"), node, "axios.create() baseURL", false);
    return { result: { flows: [], kind: "module", path: "axios" } };
  }
  if (HTTP_CLIENT.test(name) && !(name === "request" && recv)) {
    // needle("get", url, …): the method comes first.
    if (name === "needle" && arg0.hasConst && /^(?:get|post|put|patch|delete|head)$/i.test(String(arg0.c)))
      args.shift();
    const first = args[0] ?? EMPTY;
    const target = first.fields
      ? joinAll(
          [
            first.fields.get("url"),
            first.fields.get("baseURL"),
            first.fields.get("host"),
            first.fields.get("hostname"),
            first.fields.get("uri"),
          ].filter((x): x is Val => !!x),
        )
      : first;
    a.sink("ssrf", target, node, `${site.callee}()`, !first.fields);
    return { result: EMPTY, callbackArgs: args.map((x) => (x.fn ? [EMPTY, EMPTY, EMPTY] : undefined)) };
  }

  // ---- crypto
  if (/^crypto\.createHash$/.test(name) || /^createHash$/.test(site.callee)) {
    const alg = arg0.hasConst ? String(arg0.c).toLowerCase() : "";
    return {
      result: /^(?:md5|md4|sha1|sha-1|ripemd160)$/.test(alg) ? { flows: [], kind: "weak-hash", meta: { alg } } : EMPTY,
    };
  }
  if (recv?.kind === "weak-hash") {
    if (method === "update") {
      a.sink("weak-hash", arg0, node, `${recv.meta?.alg ?? "weak"} hash`);
      return { result: recv };
    }
    return { result: EMPTY };
  }
  if (name === "Math.random") return { result: sourceVal("random", "Math.random()", step(node)) };

  // ---- queues: a job's or message's payload is data from whoever could enqueue it
  if (
    (site.isNew && /^(?:bullmq|bull|bee-queue)\.Worker$/.test(name)) ||
    (method === "process" && /^(?:bull|bee-queue)/.test(recv?.path ?? ""))
  )
    return {
      result: { flows: [], fields: new Map() },
      callbackArgs: args.map((x) => (x.fn ? [queueJob(node)] : undefined)),
    };
  if (method === "consume" && args.some((x) => x.fn) && !recv?.kind)
    return {
      result: EMPTY,
      callbackArgs: args.map((x) =>
        x.fn ? [{ flows: [], fields: new Map([["content", src(node, "queue")]]) }] : undefined,
      ),
    };

  // ---- sanitizers and conversions
  if (/^(?:parseInt|parseFloat|Number|Boolean|Math\.\w+|Number\.\w+|isNaN|Date\.now|crypto\.\w+|uuid\.\w+)$/.test(name))
    return { result: /^(?:crypto|uuid)\./.test(name) ? EMPTY : numeric(joinAll(args)) };
  if (name === "String" || method === "toString" || method === "toFixed")
    return { result: stringify(method === "toString" ? (recv ?? EMPTY) : arg0) };
  if (/^(?:encodeURIComponent|encodeURI|querystring\.escape|escape)$/.test(name) && !recv)
    return { result: clean(stringify(arg0), ["xss", "path", "nosql", "command", "redirect"]) };
  if (
    XSS_SANITIZER.test(name) ||
    (method === "escape" && recv && !/sql|mysql|pool|conn|db|knex|ldap/i.test(site.recvNode?.text ?? ""))
  )
    return { result: clean(stringify(site.tagged ? EMPTY : arg0), ["xss"]) };
  if (
    method === "escape" ||
    method === "escapeLiteral" ||
    method === "escapeId" ||
    name === "sqlstring.escape" ||
    name === "mysql.format" ||
    name === "sqlstring.format"
  )
    return { result: method === "format" || /format$/.test(name) ? EMPTY : clean(stringify(arg0), ["sql"]) };
  if (/^(?:shell-quote\.quote|shell-escape|shellescape|shellQuote)$/.test(name))
    return { result: clean(stringify(joinAll([arg0, element(arg0)])), ["command"]) };
  if (/^(?:mongo-sanitize|express-mongo-sanitize\.sanitize)$/.test(name)) return { result: clean(arg0, ["nosql"]) };
  if (name === "JSON.parse") return { result: { flows: deepFlows(arg0).map((f) => ({ ...f, structured: true })) } };
  if (name === "JSON.stringify") return { result: stringify(arg0) };
  if (name === "Object.assign" && args[0]) {
    for (const s of args.slice(1)) {
      for (const [k, v] of s.fields ?? []) setField(args[0], k, v);
      if (s.flows.length) addElement(args[0], { flows: s.flows });
    }
    return { result: args[0] };
  }
  if (/^Object\.(?:keys|values|entries)$/.test(name)) return { result: { flows: [], elems: element(arg0) } };
  if (/^(?:Array\.from|Promise\.resolve|Promise\.all|structuredClone)$/.test(name)) return { result: arg0 };

  if (
    recv &&
    !recv.kind &&
    method === "get" &&
    args.length === 1 &&
    (recv.fields || recv.elems) &&
    !recv.flows.length
  ) {
    const key = args[0]!;
    return { result: key.hasConst ? field(recv, String(key.c)) : element(recv) };
  }

  // ---- SQL (the callee text says "a database"; the argument says "SQL")
  if (!site.tagged && plainReceiver(recv) && (SQL_STRONG.test(method) || SQL_WEAK.test(method))) {
    if (SQL_STRONG.test(method) || SQL_WORDS.test(arg0.frag ?? "")) {
      const looksSql = SQL_WORDS.test(arg0.frag ?? "") || !arg0.frag;
      if (looksSql && !arg0.fn) a.sink("sql", arg0, node, `${site.callee}()`, false);
    }
    if (SQL_STRONG.test(method) || SQL_WORDS.test(arg0.frag ?? ""))
      return { result: EMPTY, callbackArgs: args.map((x) => (x.fn ? [EMPTY, EMPTY] : undefined)) };
  }
  if (/^(?:sequelize\.query|knex\.raw)$/.test(name)) a.sink("sql", arg0, node, `${site.callee}()`, false);

  // ---- NoSQL (Mongo-style filters)
  if (method === "$where" && recv && !arg0.fn) {
    a.sink("nosql", asOperator(arg0), node, `${site.callee}()`);
    return { result: recv };
  }
  if (plainReceiver(recv) && NOSQL_METHODS.test(method) && !arg0.fn && (arg0.fields || arg0.flows.length)) {
    nosqlCheck(a, arg0, node, site);
    if (method === "where" && arg0.flows.length && !arg0.fields)
      a.sink("nosql", asOperator(arg0), node, `${site.callee}()`, false);
    return { result: EMPTY, callbackArgs: args.map((x) => (x.fn ? [EMPTY, EMPTY] : undefined)) };
  }

  // ---- collections (containers keep what goes in)
  if (recv && !recv.kind) {
    if (method === "push" || method === "unshift" || method === "add") {
      for (const x of args) pushElement(recv, x, method === "push");
      return { result: EMPTY };
    }
    if (method === "set" && args.length === 2) {
      if (args[0]?.hasConst) setField(recv, String(args[0].c), args[1]!);
      else addElement(recv, args[1]!);
      return { result: recv };
    }
    if (method === "get" && args.length === 1 && (recv.fields || recv.elems)) {
      const key = args[0]!;
      return { result: key.hasConst ? field(recv, String(key.c)) : element(recv) };
    }
    if (method === "replace" || method === "replaceAll") return { result: replaceModel(site, recv) };
    if (
      /^(?:includes|indexOf|lastIndexOf|startsWith|endsWith|test|localeCompare|search|has|every|some|findIndex)$/.test(
        method,
      )
    )
      return method === "some" || method === "every" || method === "findIndex" ? undefined : { result: EMPTY };
  }
  return undefined;
}

function koaCall(a: JsAnalyzer, site: JsCall): Modelled {
  const { method, recv, args, node } = site;
  if (method === "get") return { result: src(node) };
  if (method === "redirect") {
    a.sink("redirect", args[0], node, "ctx.redirect()");
    return { result: EMPTY };
  }
  if (method === "set") {
    const k = args[0]?.hasConst ? String(args[0].c).toLowerCase() : "";
    if (k === "location") a.sink("redirect", args[1], node, "Location header");
    if (k === "content-type") recv!.meta = { ...recv!.meta, type: args[1]?.hasConst ? String(args[1].c) : "unknown" };
    return { result: EMPTY };
  }
  if (method === "attachment") a.sink("path", args[0], node, "ctx.attachment()");
  return { result: EMPTY };
}

function responseCall(a: JsAnalyzer, site: JsCall, res: Val): Modelled {
  const { method, args, node } = site;
  const [a0, a1, a2] = args;
  const typeIsHtml = () => !res.meta?.type || /html/i.test(res.meta.type);
  switch (method) {
    case "send":
    case "write":
    case "end":
      if (
        typeIsHtml() &&
        a0 &&
        !a0.fields &&
        !a0.elems &&
        !a0.meta?.whole &&
        !/^(?:object|array)$/.test(site.argNodes[0]?.type ?? "")
      )
        a.sink("xss", a0, node, `res.${method}()`, false);
      return { result: res };
    case "redirect": {
      const url = a0?.hasConst && typeof a0.c === "number" ? a1 : a0;
      a.sink("redirect", url, node, "res.redirect()");
      return { result: res };
    }
    case "location":
      a.sink("redirect", a0, node, "res.location()");
      return { result: res };
    case "sendFile":
    case "sendfile":
    case "download": {
      const opts = [a1, a2].find((x) => x?.fields);
      if (!opts?.fields?.has("root")) a.sink("path", a0, node, `res.${method}()`, false);
      return { result: res, callbackArgs: args.map((x) => (x.fn ? [EMPTY] : undefined)) };
    }
    case "render":
      a.sink("path", a0, node, "res.render() view name", false);
      return { result: res, callbackArgs: args.map((x) => (x.fn ? [EMPTY, EMPTY] : undefined)) };
    case "cookie":
      a.sink("weak-random", a1, node, "cookie value");
      cookieCheck(a, site, a2, "express");
      return { result: res };
    case "type":
    case "contentType":
      res.meta = { ...res.meta, type: a0?.hasConst ? String(a0.c) : "unknown" };
      return { result: res };
    case "set":
    case "header":
    case "setHeader":
    case "append": {
      if (a0?.fields) {
        for (const [k, v] of a0.fields) headerWrite(a, res, k, v, node);
        return { result: res };
      }
      if (a0?.hasConst) headerWrite(a, res, String(a0.c), a1 ?? EMPTY, node);
      return { result: res };
    }
    case "writeHead": {
      const headers = args.find((x) => x.fields);
      for (const [k, v] of headers?.fields ?? []) headerWrite(a, res, k, v, node);
      return { result: res };
    }
    case "json":
    case "jsonp":
    case "status":
    case "sendStatus":
    case "vary":
    case "clearCookie":
    case "attachment":
    case "format":
    case "links":
      return { result: res };
    default:
      return { result: res };
  }
}

function headerWrite(a: JsAnalyzer, res: Val, name: string, v: Val, node: Node): void {
  const k = name.toLowerCase();
  if (k === "location") a.sink("redirect", v, node, "Location header");
  if (k === "content-type") res.meta = { ...res.meta, type: v.hasConst ? String(v.c) : "unknown" };
  if (k === "set-cookie" && v.hasConst && !(/;\s*secure/i.test(String(v.c)) && /;\s*httponly/i.test(String(v.c))))
    a.config("cookie", node, "a cookie is set without Secure and HttpOnly");
}

function replyCall(a: JsAnalyzer, site: JsCall, reply: Val): Modelled {
  const { method, args, node } = site;
  const [a0, a1] = args;
  switch (method) {
    case "send":
      if (reply.meta?.type && /html/i.test(reply.meta.type) && a0 && !a0.fields && !a0.meta?.whole)
        a.sink("xss", a0, node, "reply.send() as text/html", false);
      return { result: reply };
    case "type":
      reply.meta = { ...reply.meta, type: a0?.hasConst ? String(a0.c) : "unknown" };
      return { result: reply };
    case "header":
    case "headers":
      if (a0?.fields) for (const [k, v] of a0.fields) headerWrite(a, reply, k, v, node);
      else if (a0?.hasConst) headerWrite(a, reply, String(a0.c), a1 ?? EMPTY, node);
      return { result: reply };
    case "redirect": {
      const url = a0?.hasConst && typeof a0.c === "number" ? a1 : a0;
      a.sink("redirect", url, node, "reply.redirect()");
      return { result: reply };
    }
    case "setCookie":
      a.sink("weak-random", a1, node, "cookie value");
      cookieCheck(a, site, args[2], "fastify");
      return { result: reply };
    case "sendFile":
    case "download":
      a.sink("path", a0, node, `reply.${method}()`, false);
      return { result: reply };
    default:
      return { result: reply };
  }
}

function headerValue(headers: Val | undefined, name: string): string | undefined {
  for (const [k, v] of headers?.fields ?? []) if (k.toLowerCase() === name && v.hasConst) return String(v.c);
  return undefined;
}

function truthy(v: Val | undefined): boolean {
  return !!v?.hasConst && !!v.c;
}

/** Missing Secure / HttpOnly (Koa's cookies are HttpOnly by default; only Secure is needed there). */
function cookieCheck(a: JsAnalyzer, site: JsCall, opts: Val | undefined, framework: string): void {
  const secure = truthy(opts?.fields?.get("secure"));
  const httpOnly =
    framework === "koa" ? opts?.fields?.get("httpOnly")?.c !== false : truthy(opts?.fields?.get("httpOnly"));
  if (opts && !opts.fields && !opts.hasConst) return; // options built elsewhere: unknown
  const missing = [secure ? null : "Secure", httpOnly ? null : "HttpOnly"].filter(Boolean);
  if (missing.length) a.config("cookie", site.node, `a cookie is set without ${missing.join(" and ")}`);
}

/** A Mongo filter: `$where` with input is code; an input value that may be an object injects operators. */
function nosqlCheck(a: JsAnalyzer, filter: Val, node: Node, site: JsCall): void {
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
function rawOutput(name: string, tpl: Val, opts: Val | undefined): boolean | "config" {
  if (opts?.fields?.get("noEscape")?.c === true || opts?.fields?.get("autoescape")?.c === false) return "config";
  const text = tpl.hasConst ? String(tpl.c) : "";
  if (/^ejs\./.test(name)) return /<%-/.test(text);
  if (/^pug|^jade/.test(name)) return /!\{|!=/.test(text);
  if (/nunjucks|twig|liquid/.test(name)) return /\|\s*safe\b|autoescape\s+false/.test(text);
  return /\{\{\{|\{\{\s*&/.test(text);
}

/** What a template renders from its data: HTML-escaped unless it prints raw. */
function rendered(raw: boolean, data: Val[]): Val {
  const v = stringify(joinAll(data.map((d) => ({ flows: deepFlows(d) }))));
  return raw ? v : clean(v, ["xss"]);
}

/** A queued job: its `data` is the payload (any shape). */
function queueJob(node: Node): Val {
  return { flows: [], fields: new Map([["data", src(node, "queue", { structured: true, whole: true })]]) };
}

/** Data used as Mongo code or operators counts whether or not it was an object. */
function asOperator(v: Val): Val {
  return { flows: deepFlows(v).map((f) => ({ ...f, structured: true })) };
}

/** `s.replace(/[^\w-]/g, "")` keeps only safe characters; `s.replace(/</g, "&lt;")` escapes markup. */
function replaceModel(site: JsCall, recv: Val): Val {
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

export const NOSQL_TEXT = /mongoose|mongodb|monk|mongojs/;
export { SQL_WORDS };
export type { Weakness };
