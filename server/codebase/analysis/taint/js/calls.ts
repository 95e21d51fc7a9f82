/**
 * What calls do in Express, Koa, Fastify, Next.js and Node's libraries, for the JS interpreter: one
 * table of models (the shape `../models.ts` defines and reads) — sources, sinks by weakness,
 * sanitizers, containers — in the order they are asked. What responses and Koa contexts do with a
 * call is in `js/responses.ts`; the filter, template and replace() checks in `js/checks.ts`.
 */
import type { Node } from "../../../treesitter.ts";
import { SQL_WORDS } from "../../rules/sql.ts";
import { charPredicate } from "../guards.ts";
import {
  applyModels,
  sanitizerModel,
  sinkModel,
  sourceAt as src,
  stepAt as step,
  type ModelTable,
  type Modelled,
} from "../models.ts";
import {
  addElement,
  clean,
  deepFlows,
  element,
  EMPTY,
  field,
  joinAll,
  numeric,
  pushElement,
  setField,
  sourceVal,
  stringify,
  type Val,
} from "../values.ts";
import type { JsHost } from "./host.ts";
import { isRouteRegistration, request, response, routeHandlerArgs, type JsCall } from "./model.ts";
import { asOperator, nosqlCheck, rawOutput, rendered, replaceModel } from "./checks.ts";
import { cookieCheck, headerValue, koaCall, replyCall, responseCall, truthy } from "./responses.ts";

/** A call as the table sees it: `name` is the callee with `fs.promises.` folded into `fs.`. */
export interface JsSite extends JsCall {
  name: string;
  arg0: Val;
}

type Table = ModelTable<JsHost, JsSite>;

const FS_PATH =
  /^fs(?:-extra)?\.(?:promises\.)?(?:readFile|readFileSync|createReadStream|writeFile|writeFileSync|createWriteStream|appendFile|appendFileSync|unlink|unlinkSync|rm|rmSync|rmdir|readdir|readdirSync|open|openSync|stat|statSync|access|accessSync|copyFile|copyFileSync|rename|renameSync|mkdir|mkdirSync|existsSync|readJson|readJsonSync|outputFile|remove|lstat|opendir)$/;
const TEMPLATE_COMPILERS =
  /^(?:ejs\.(?:render|compile)|pug\.(?:render|compile)|jade\.(?:render|compile)|handlebars\.compile|Handlebars\.compile|nunjucks\.renderString|lodash\.template|lodash\.template|underscore\.template|_\.template|mustache\.render|Mustache\.render|dot\.template|doT\.template|eta\.renderString|liquidjs\.parseAndRender|twig\.twig|hbs\.compile)$/;
const HTTP_CLIENT =
  /^(?:fetch|node-fetch|undici\.(?:fetch|request)|axios|axios\.(?:get|post|put|patch|delete|head|request|options)|got|got\.(?:get|post|put|patch|delete|head|stream)|request|request\.(?:get|post)|superagent\.(?:get|post|put|delete)|needle|needle\.(?:get|post|request)|http\.(?:get|request)|https\.(?:get|request)|ky|ky\.(?:get|post))$/;
const XSS_SANITIZER =
  /^(?:escape-html|he\.(?:encode|escape)|validator\.escape|lodash\.escape|_\.escape|underscore\.escape|xss|xss\.filterXSS|filterXSS|sanitize-html|dompurify\.sanitize|DOMPurify\.sanitize|isomorphic-dompurify\.sanitize|escapeHtml|escapeHTML|htmlEscape|encodeHTML|encodeHtml|sanitizeHtml|entities\.encode|html-entities\.encode|encode)$/;
const SQL_STRONG = /^(?:query|execute|raw|\$queryRawUnsafe|\$executeRawUnsafe|unsafe|sql)$/;
const SQL_WEAK = /^(?:exec|run|all|get|prepare|each|many|one|none|oneOrNone|any)$/;
const NOSQL_METHODS =
  /^(?:find|findOne|findOneAndUpdate|findOneAndDelete|findOneAndReplace|findOneAndRemove|updateOne|updateMany|deleteOne|deleteMany|replaceOne|countDocuments|count|aggregate|distinct|where|remove|update|exists)$/;

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

const callbacksGet = (n: number) => (site: JsSite) =>
  site.args.map((x, i) => (x.fn && i > 0 ? Array.from({ length: n }, () => EMPTY) : undefined));
const anyCallbackGets = (n: number) => (site: JsSite) =>
  site.args.map((x) => (x.fn ? Array.from({ length: n }, () => EMPTY) : undefined));

// ---- modules, handlers and request objects -------------------------------------------------------

const REQUESTS: Table = [
  {
    what: "require()",
    when: (s) => s.name === "require" || s.calleeNode.text === "require",
    then: (_a, s) => {
      const spec = s.arg0.hasConst ? String(s.arg0.c) : "";
      if (spec.startsWith(".")) return { result: { flows: [], kind: "local-import", path: `${spec}#*` } };
      return { result: { flows: [], kind: "module", path: spec.replace(/^node:/, "").replace(/\/promises$/, "") } };
    },
  },
  {
    what: "a route registration: its handlers get (request, response)",
    when: (s) => isRouteRegistration(s),
    then: (a, s) => ({ result: s.recv ?? EMPTY, callbackArgs: routeHandlerArgs(a, s) }),
  },
  {
    what: "http.createServer(handler)",
    callee: /^(?:http|https|http2)\.(?:createServer|createSecureServer)$/,
    then: (_a, s) => ({ result: EMPTY, callbackArgs: s.args.map((x) => (x.fn ? [request(), response()] : undefined)) }),
  },
  {
    what: "source: req.get() / header() / param(), req.on('data')",
    recv: "req",
    then: (_a, s) => {
      if (/^(?:get|header|param)$/.test(s.method)) return { result: src(s.node) };
      if (s.method === "on" && s.args[1]?.fn) return { callbackArgs: [undefined, [src(s.node)]] };
      return { result: EMPTY };
    },
  },
  { what: "Koa context", recv: "koa", then: (a, s) => koaCall(a, s) },
  {
    what: "source: ctx.request.get()",
    recv: "koa-request",
    then: (_a, s) => ({ result: s.method === "get" ? src(s.node) : EMPTY }),
  },
  {
    what: "Koa cookies: get() a source, set() checked for Secure",
    recv: "cookie-jar",
    then: (a, s) => {
      if (s.method === "get") return { result: src(s.node) };
      if (s.method !== "set") return undefined;
      cookieCheck(a, s, s.args[2], "koa");
      return { result: EMPTY };
    },
  },
  {
    what: "source: a fetch Request's body",
    recv: "fetch-request",
    then: (_a, s) => {
      if (s.method === "json") return { result: src(s.node, "request", { structured: true, whole: true }) };
      if (/^(?:text|arrayBuffer|blob)$/.test(s.method)) return { result: src(s.node) };
      if (s.method === "formData") return { result: { ...src(s.node), kind: "form-data" } };
      return { result: EMPTY };
    },
  },
  {
    what: "source: headers / searchParams / formData get()",
    recv: /^(?:headers|search-params|form-data)$/,
    then: (_a, s) => {
      const recv = s.recv!;
      if (s.method !== "get" && s.method !== "getAll") return { result: EMPTY };
      return {
        result: recv.kind === "headers" ? src(s.node) : recv.flows.length ? { flows: recv.flows } : src(s.node),
      };
    },
  },
  {
    what: "Next cookies(): get() a source, set() checked",
    recv: "cookie-store",
    then: (a, s) => {
      if (s.method === "get") return { result: { flows: [], fields: new Map([["value", src(s.node)]]) } };
      if (s.method === "set") cookieCheck(a, s, s.args[0]?.fields ? s.args[0] : s.args[2], "next");
      return { result: EMPTY };
    },
  },
  {
    what: "source: process.stdin.on('data')",
    recv: "stdin",
    method: /^on$/,
    then: (_a, s) => ({ callbackArgs: [undefined, [src(s.node, "stdin")]] }),
  },
  { what: "the session", recv: "session", then: (_a, s) => ({ result: s.recv }) },
  { what: "Express response", recv: "res", then: (a, s) => responseCall(a, s, s.recv!) },
  { what: "Fastify reply", recv: "reply", then: (a, s) => replyCall(a, s, s.recv!) },
];

// ---- Next.js and URLs ----------------------------------------------------------------------------

const NEXT: Table = [
  {
    what: "Next cookies()",
    when: (s) => /^next\/headers\.cookies$/.test(s.name) || (s.name === "cookies" && !s.args.length),
    then: () => ({ result: { flows: [], kind: "cookie-store" } }),
  },
  {
    what: "Next headers()",
    callee: /^next\/headers\.headers$/,
    then: () => ({ result: { flows: [], kind: "headers" } }),
  },
  sinkModel({
    callee:
      /^(?:next\/navigation\.(?:redirect|permanentRedirect)|NextResponse\.redirect|Response\.redirect|next\/server\.NextResponse\.redirect)$/,
    weakness: "redirect",
  }),
  {
    what: "xss: new Response(html) with an HTML content type",
    callee: /^(?:Response|NextResponse|next\/server\.NextResponse)$/,
    when: (s) => s.isNew,
    then: (a, s) => {
      const type = headerValue(s.args[1]?.fields?.get("headers"), "content-type");
      if (type && /html/i.test(type)) a.sink("xss", s.arg0, s.node, `new ${s.callee}()`, false);
      return { result: EMPTY };
    },
  },
  {
    what: "new URL(): a constant local path on a base keeps the base's host",
    callee: /^URL$/,
    when: (s) => s.isNew,
    then: (_a, s) => {
      const [u, base] = s.args;
      if (u?.hasConst) {
        const local = typeof u.c === "string" && /^\/(?![/\\])/.test(u.c);
        return { result: { ...(local && base ? clean(base, ["redirect", "ssrf"]) : EMPTY), kind: "url" } };
      }
      return { result: { flows: deepFlows(u ?? EMPTY), kind: "url" } };
    },
  },
  {
    what: "new URLSearchParams()",
    callee: /^URLSearchParams$/,
    when: (s) => s.isNew,
    then: (_a, s) => ({ result: { flows: deepFlows(s.arg0), kind: "search-params" } }),
  },
];

// ---- code, command, files, templates, deserialization, XML, LDAP ---------------------------------

const EXECUTION: Table = [
  sinkModel({
    callee: /^(?:eval|Function|vm\.(?:runInNewContext|runInThisContext|runInContext|compileFunction|Script))$/,
    weakness: "code",
    arg: (s) => (s.name === "Function" ? s.args[s.args.length - 1] : s.arg0),
  }),
  {
    what: "code: a string timer",
    callee: /^(?:setTimeout|setInterval|setImmediate)$/,
    then: (a, s) => {
      if (!s.arg0.fn) a.sink("code", s.arg0, s.node, `${s.callee}()`);
      return { callbackArgs: [[]] };
    },
  },
  sinkModel({
    callee: /^(?:child_process\.(?:exec|execSync)|shelljs\.exec|execa\.command|execa\.commandSync)$/,
    weakness: "command",
    callbackArgs: callbacksGet(3),
  }),
  {
    what: "command: spawn / execFile (the program; the arguments too with shell: true)",
    callee: /^(?:child_process\.(?:spawn|spawnSync|execFile|execFileSync|fork)|execa(?:\.sync)?)$/,
    then: (a, s) => {
      a.sink("command", s.arg0, s.node, `${s.callee}()`, false);
      const opts = s.args.find((x, i) => i > 0 && x.fields && !x.elems);
      if (opts && truthy(opts.fields?.get("shell")))
        a.sink("command", s.args[1], s.node, `${s.callee}() with shell: true`);
      return { result: EMPTY, callbackArgs: callbacksGet(3)(s) };
    },
  },
  {
    what: "path: fs calls (reads are file sources)",
    callee: FS_PATH,
    then: (a, s) => {
      a.sink("path", s.arg0, s.node, `${s.callee}()`, false);
      const contents = /read/i.test(s.name) ? src(s.node, "file") : EMPTY;
      const cbIndex = s.args.findIndex((x) => x.fn);
      const callbackArgs = s.args.map((_, i) => (i === cbIndex ? [EMPTY, contents] : undefined));
      const returns = /Sync$|promises/.test(s.callee) || /readJson|readFile$/.test(s.name);
      return { result: returns ? contents : EMPTY, callbackArgs };
    },
  },
  sanitizerModel({ callee: /^(?:path\.basename|sanitize-filename)$/, cleans: ["path"] }),
  {
    what: "path.join / resolve …: a string of its parts",
    callee: /^path\.(?:join|resolve|normalize|relative|dirname|extname|format|posix\.join)$/,
    then: (_a, s) => ({ result: stringify(joinAll(s.args)) }),
  },
  {
    what: "a compiled template renders its data (escaped unless it prints raw)",
    when: (s) => s.calleeVal?.kind === "compiled-template",
    then: (_a, s) => ({ result: rendered(s.calleeVal!.meta?.raw === "1", s.args) }),
  },
  {
    what: "template: a template built from data; raw output and escaping off",
    callee: TEMPLATE_COMPILERS,
    then: (a, s) => {
      a.sink("template", s.arg0, s.node, `${s.callee}()`, false);
      const raw = rawOutput(s.name, s.arg0, s.args[1]);
      if (raw === "config") a.config("autoescape", s.node, `${s.callee}() with noEscape: true`);
      if (/compile|template$|twig$/.test(s.name))
        return { result: { flows: [], kind: "compiled-template", meta: { raw: raw ? "1" : "" } } };
      return { result: rendered(!!raw, s.args.slice(1)) };
    },
  },
  {
    what: "autoescape: nunjucks / swig configured without escaping",
    when: (s) =>
      /^(?:nunjucks\.configure|swig\.setDefaults)$/.test(s.name) ||
      (s.isNew && /^(?:nunjucks\.Environment|swig\.Swig)$/.test(s.name)),
    then: (a, s) => {
      const opts = s.args.find((x) => x.fields?.has("autoescape"));
      if (opts?.fields?.get("autoescape")?.c === false)
        a.config("autoescape", s.node, `${s.callee}() with autoescape: false`);
      return { result: { flows: [], fields: new Map() } };
    },
  },
  sinkModel({
    callee: /^(?:node-serialize\.unserialize|serialize-to-js\.deserialize|funcster\.deepDeserialize|cryo\.parse)$/,
    weakness: "deserialization",
  }),
  {
    what: "xxe: libxmljs with noent: true",
    callee: /^libxmljs2?\.(?:parseXml|parseXmlString|parseXmlAsync)$/,
    then: (a, s) => {
      if (truthy(s.args[1]?.fields?.get("noent"))) a.sink("xxe", s.arg0, s.node, `${s.callee}() with noent: true`);
      return { result: EMPTY };
    },
  },
  sinkModel({
    callee: /^(?:xpath\.(?:select|select1|evaluate|parse|useNamespaces)|document\.evaluate)$/,
    weakness: "xpath",
  }),
  {
    what: "ldapjs client",
    callee: /^ldapjs\.createClient$/,
    then: () => ({ result: { flows: [], kind: "ldap-client" } }),
  },
  {
    what: "ldap: search base and filter",
    recv: "ldap-client",
    method: /^search$/,
    then: (a, s) => {
      a.sink("ldap", s.args[0], s.node, "ldap search base");
      const opts = s.args[1];
      a.sink("ldap", opts?.fields ? opts.fields.get("filter") : opts, s.node, `${s.callee}()`);
      return { result: EMPTY, callbackArgs: anyCallbackGets(2)(s) };
    },
  },
  sanitizerModel({
    callee:
      /^(?:ldap-escape\.filter|ldap-escape\.dn|ldapEscape\.filter|ldapEscape\.dn|escapeLdap|escapeLDAP|escapeFilter)$/,
    cleans: ["ldap"],
    input: (s) => (s.tagged ? EMPTY : joinAll(s.args)),
  }),
];

// ---- message consumers: Kafka and SQS payloads are data from whoever could produce them ----------

/** A received message (or batch, or response) whose every field read is the queued payload. */
const payload = (s: JsSite): Val => src(s.node, "queue", { structured: true, whole: true });

/** Run the handler functions an options object names (`{ eachMessage: fn }`) with `args`. */
function runHandlers(a: JsHost, opts: Val, names: RegExp, args: Val[]): void {
  for (const [k, v] of opts.fields ?? []) if (names.test(k) && v.fn) a.invoke(v.fn, args);
}

const QUEUE_CONSUMERS: Table = [
  {
    what: "kafkajs: new Kafka(), kafka.consumer()",
    when: (s) => (s.isNew && /^kafkajs\.Kafka$/.test(s.name)) || (s.recv?.kind === "kafka" && s.method === "consumer"),
    then: (_a, s) => ({ result: { flows: [], kind: s.recv?.kind === "kafka" ? "kafka-consumer" : "kafka" } }),
  },
  {
    what: "source (queue): kafkajs consumer.run({ eachMessage, eachBatch })",
    recv: "kafka-consumer",
    then: (a, s) => {
      if (s.method === "run")
        runHandlers(a, s.arg0, /^(?:eachMessage|eachBatch)$/, [
          {
            flows: [],
            fields: new Map([
              ["message", payload(s)],
              ["batch", payload(s)],
            ]),
          },
        ]);
      return { result: EMPTY };
    },
  },
  {
    what: "AWS SDK v3: new ReceiveMessageCommand(…)",
    callee: /^(?:@aws-sdk\/client-sqs\.)?ReceiveMessageCommand$/,
    when: (s) => s.isNew,
    then: () => ({ result: { flows: [], kind: "sqs-receive" } }),
  },
  {
    what: "source (queue): client.send(new ReceiveMessageCommand(…))",
    method: /^send$/,
    when: (s) => s.arg0.kind === "sqs-receive",
    then: (_a, s) => ({
      result: payload(s),
      callbackArgs: s.args.map((x) => (x.fn ? [EMPTY, payload(s)] : undefined)),
    }),
  },
  {
    what: "source (queue): AWS SDK v2 sqs.receiveMessage(params[, callback])",
    method: /^receiveMessage$/,
    when: (s) => !!s.recv,
    then: (_a, s) => ({
      result: payload(s),
      callbackArgs: s.args.map((x) => (x.fn ? [EMPTY, payload(s)] : undefined)),
    }),
  },
  {
    what: "source (queue): sqs-consumer Consumer.create({ handleMessage, handleMessageBatch })",
    callee: /^sqs-consumer\.Consumer\.create$|^Consumer\.create$/,
    then: (a, s) => {
      runHandlers(a, s.arg0, /^(?:handleMessage|handleMessageBatch)$/, [payload(s)]);
      return { result: { flows: [], fields: new Map() } };
    },
  },
];

// ---- SSRF, crypto, queues ------------------------------------------------------------------------

const OUTBOUND: Table = [
  {
    what: "ssrf: axios.create({ baseURL })",
    callee: /^axios\.create$/,
    then: (a, s) => {
      a.sink("ssrf", s.arg0.fields?.get("baseURL"), s.node, "axios.create() baseURL", false);
      return { result: { flows: [], kind: "module", path: "axios" } };
    },
  },
  {
    what: "ssrf: HTTP clients (a URL, or an options object's url / host)",
    callee: HTTP_CLIENT,
    when: (s) => !(s.name === "request" && s.recv),
    then: (a, s) => {
      const { args } = s;
      // needle("get", url, …): the method comes first.
      if (s.name === "needle" && s.arg0.hasConst && /^(?:get|post|put|patch|delete|head)$/i.test(String(s.arg0.c)))
        args.shift();
      const first = args[0] ?? EMPTY;
      const target = first.fields
        ? joinAll(
            ["url", "baseURL", "host", "hostname", "uri"].map((k) => first.fields!.get(k)).filter((x): x is Val => !!x),
          )
        : first;
      a.sink("ssrf", target, s.node, `${s.callee}()`, !first.fields);
      return { result: EMPTY, callbackArgs: anyCallbackGets(3)(s) };
    },
  },
  {
    what: "a hash object; MD5 / SHA-1 / MD4 / RIPEMD-160 are weak",
    when: (s) => /^crypto\.createHash$/.test(s.name) || /^createHash$/.test(s.callee),
    then: (_a, s) => {
      const alg = s.arg0.hasConst ? String(s.arg0.c).toLowerCase() : "";
      return {
        result: /^(?:md5|md4|sha1|sha-1|ripemd160)$/.test(alg)
          ? { flows: [], kind: "weak-hash", meta: { alg } }
          : EMPTY,
      };
    },
  },
  {
    what: "weak-hash: what a weak hash is updated with",
    recv: "weak-hash",
    then: (a, s) => {
      if (s.method !== "update") return { result: EMPTY };
      a.sink("weak-hash", s.arg0, s.node, `${s.recv!.meta?.alg ?? "weak"} hash`);
      return { result: s.recv };
    },
  },
  {
    what: "source (random): Math.random()",
    callee: /^Math\.random$/,
    then: (_a, s) => ({ result: sourceVal("random", "Math.random()", step(s.node)) }),
  },
  {
    what: "source (queue): BullMQ / Bull / Bee-Queue jobs",
    when: (s) =>
      (s.isNew && /^(?:bullmq|bull|bee-queue)\.Worker$/.test(s.name)) ||
      (s.method === "process" && /^(?:bull|bee-queue)/.test(s.recv?.path ?? "")),
    then: (_a, s) => ({
      result: { flows: [], fields: new Map() },
      callbackArgs: s.args.map((x) => (x.fn ? [queueJob(s)] : undefined)),
    }),
  },
  {
    what: "source (queue): amqplib channel.consume",
    method: /^consume$/,
    when: (s) => s.args.some((x) => x.fn) && !s.recv?.kind,
    then: (_a, s) => ({
      result: EMPTY,
      callbackArgs: s.args.map((x) =>
        x.fn ? [{ flows: [], fields: new Map([["content", src(s.node, "queue")]]) }] : undefined,
      ),
    }),
  },
  ...QUEUE_CONSUMERS,
];

/** A queued job: its `data` is the payload (any shape). */
function queueJob(s: JsSite): Val {
  return { flows: [], fields: new Map([["data", src(s.node, "queue", { structured: true, whole: true })]]) };
}

// ---- sanitizers and conversions ------------------------------------------------------------------

const CONVERSIONS: Table = [
  {
    what: "numeric conversions (ids from crypto / uuid carry nothing)",
    callee: /^(?:parseInt|parseFloat|Number|Boolean|Math\.\w+|Number\.\w+|isNaN|Date\.now|crypto\.\w+|uuid\.\w+)$/,
    then: (_a, s) => ({ result: /^(?:crypto|uuid)\./.test(s.name) ? EMPTY : numeric(joinAll(s.args)) }),
  },
  {
    what: "String() / toString()",
    when: (s) => s.name === "String" || s.method === "toString" || s.method === "toFixed",
    then: (_a, s) => ({ result: stringify(s.method === "toString" ? (s.recv ?? EMPTY) : s.arg0) }),
  },
  sanitizerModel({
    callee: /^(?:encodeURIComponent|encodeURI|querystring\.escape|escape)$/,
    when: (s) => !s.recv,
    cleans: ["xss", "path", "nosql", "command", "redirect"],
  }),
  sanitizerModel({
    what: "sanitizer: HTML escapers (and .escape() on anything but a database or LDAP handle)",
    when: (s) =>
      XSS_SANITIZER.test(s.name) ||
      (s.method === "escape" && !!s.recv && !/sql|mysql|pool|conn|db|knex|ldap/i.test(s.recvNode?.text ?? "")),
    cleans: ["xss"],
    input: (s) => (s.tagged ? EMPTY : s.arg0),
  }),
  {
    what: "sanitizer: SQL escapers (a format() call builds SQL: nothing known)",
    when: (s) =>
      /^(?:escape|escapeLiteral|escapeId)$/.test(s.method) ||
      /^(?:sqlstring\.escape|mysql\.format|sqlstring\.format)$/.test(s.name),
    then: (_a, s) => ({
      result: s.method === "format" || /format$/.test(s.name) ? EMPTY : clean(stringify(s.arg0), ["sql"]),
    }),
  },
  sanitizerModel({
    callee: /^(?:shell-quote\.quote|shell-escape|shellescape|shellQuote)$/,
    cleans: ["command"],
    input: (s) => joinAll([s.arg0, element(s.arg0)]),
  }),
  {
    what: "sanitizer: mongo-sanitize",
    callee: /^(?:mongo-sanitize|express-mongo-sanitize\.sanitize)$/,
    then: (_a, s) => ({ result: clean(s.arg0, ["nosql"]) }),
  },
  {
    what: "JSON.parse: structured data",
    callee: /^JSON\.parse$/,
    then: (_a, s) => ({ result: { flows: deepFlows(s.arg0).map((f) => ({ ...f, structured: true })) } }),
  },
  { what: "JSON.stringify", callee: /^JSON\.stringify$/, then: (_a, s) => ({ result: stringify(s.arg0) }) },
  {
    what: "Object.assign copies fields",
    callee: /^Object\.assign$/,
    when: (s) => !!s.args[0],
    then: (_a, s) => {
      const target = s.args[0]!;
      for (const x of s.args.slice(1)) {
        for (const [k, v] of x.fields ?? []) setField(target, k, v);
        if (x.flows.length) addElement(target, { flows: x.flows });
      }
      return { result: target };
    },
  },
  {
    what: "Object.keys / values / entries",
    callee: /^Object\.(?:keys|values|entries)$/,
    then: (_a, s) => ({ result: { flows: [], elems: element(s.arg0) } }),
  },
  {
    what: "pass the first argument on",
    callee: /^(?:Array\.from|Promise\.resolve|Promise\.all|structuredClone)$/,
    then: (_a, s) => ({ result: s.arg0 }),
  },
  {
    what: "a Map's get() with a known key",
    recv: "",
    method: /^get$/,
    when: (s) => s.args.length === 1 && !!(s.recv!.fields || s.recv!.elems) && !s.recv!.flows.length,
    then: (_a, s) => ({ result: s.arg0.hasConst ? field(s.recv!, String(s.arg0.c)) : element(s.recv!) }),
  },
];

// ---- databases -----------------------------------------------------------------------------------

const DATABASES: Table = [
  {
    what: "sql: a query method whose argument reads as SQL",
    when: (s) => !s.tagged && plainReceiver(s.recv) && (SQL_STRONG.test(s.method) || SQL_WEAK.test(s.method)),
    then: (a, s) => {
      const frag = s.arg0.frag ?? "";
      const isSql = SQL_STRONG.test(s.method) || SQL_WORDS.test(frag);
      if (!isSql) return undefined;
      if ((SQL_WORDS.test(frag) || !s.arg0.frag) && !s.arg0.fn) a.sink("sql", s.arg0, s.node, `${s.callee}()`, false);
      return { result: EMPTY, callbackArgs: anyCallbackGets(2)(s) };
    },
  },
  sinkModel({ callee: /^(?:sequelize\.query|knex\.raw)$/, weakness: "sql", deep: false, result: "next" }),
  {
    what: "nosql: the query builder's $where()",
    method: /^\$where$/,
    when: (s) => !!s.recv && !s.arg0.fn,
    then: (a, s) => {
      a.sink("nosql", asOperator(s.arg0), s.node, `${s.callee}()`);
      return { result: s.recv };
    },
  },
  {
    what: "nosql: a Mongo filter",
    method: NOSQL_METHODS,
    when: (s) => plainReceiver(s.recv) && !s.arg0.fn && !!(s.arg0.fields || s.arg0.flows.length),
    then: (a, s) => {
      nosqlCheck(a, s.arg0, s.node, s);
      if (s.method === "where" && s.arg0.flows.length && !s.arg0.fields)
        a.sink("nosql", asOperator(s.arg0), s.node, `${s.callee}()`, false);
      return { result: EMPTY, callbackArgs: anyCallbackGets(2)(s) };
    },
  },
];

// ---- containers (they keep what goes in) ---------------------------------------------------------

const CONTAINERS: Table = [
  {
    what: "push / unshift / add",
    recv: "",
    method: /^(?:push|unshift|add)$/,
    then: (_a, s) => {
      for (const x of s.args) pushElement(s.recv!, x, s.method === "push");
      return { result: EMPTY };
    },
  },
  {
    what: "Map set()",
    recv: "",
    method: /^set$/,
    when: (s) => s.args.length === 2,
    then: (_a, s) => {
      if (s.args[0]?.hasConst) setField(s.recv!, String(s.args[0].c), s.args[1]!);
      else addElement(s.recv!, s.args[1]!);
      return { result: s.recv };
    },
  },
  {
    what: "Map get()",
    recv: "",
    method: /^get$/,
    when: (s) => s.args.length === 1 && !!(s.recv!.fields || s.recv!.elems),
    then: (_a, s) => ({ result: s.arg0.hasConst ? field(s.recv!, String(s.arg0.c)) : element(s.recv!) }),
  },
  {
    what: "filter(c => /[a-z]/.test(c)): the characters an allow-list predicate lets through",
    recv: "",
    method: /^filter$/,
    when: (s) => !!s.arg0.fn,
    then: (a, s) => {
      const proven = filterProves(a, s.arg0.fn!.node);
      return proven ? { result: clean(s.recv!, proven) } : undefined;
    },
  },
  {
    what: "replace(): a character-class removal cleans",
    recv: "",
    method: /^(?:replace|replaceAll)$/,
    then: (_a, s) => ({ result: replaceModel(s, s.recv!) }),
  },
  {
    what: "tests and searches return no data",
    recv: "",
    method: /^(?:includes|indexOf|lastIndexOf|startsWith|endsWith|test|localeCompare|search|has)$/,
    then: () => ({ result: EMPTY }),
  },
];

/** What a filter callback `(c) => pred` / `function (c) { return pred; }` proves about its character. */
function filterProves(a: JsHost, fn: Node) {
  const params = fn.childForFieldName("parameters")?.namedChildren ?? [fn.childForFieldName("parameter")];
  const param = params[0];
  let body = fn.childForFieldName("body");
  if (body?.type === "statement_block") {
    const only = body.namedChildren.filter((c) => c?.type !== "comment");
    body = only.length === 1 && only[0]?.type === "return_statement" ? (only[0].namedChildren[0] ?? null) : null;
  }
  if (!param || param.type !== "identifier" || !body) return null;
  return charPredicate(body, param.text, a.ctx.grammar!);
}

export const JS_CALL_MODELS: Table = [
  ...REQUESTS,
  ...NEXT,
  ...EXECUTION,
  ...OUTBOUND,
  ...CONVERSIONS,
  ...DATABASES,
  ...CONTAINERS,
];

export function callModel(a: JsHost, site: JsCall): Modelled | undefined {
  const name = site.callee.replace(/^fs\.promises\./, "fs.").replace(/^promises\./, "fs.");
  const s: JsSite = { ...site, name, arg0: site.args[0] ?? EMPTY };
  return applyModels(JS_CALL_MODELS, a, s, name);
}
