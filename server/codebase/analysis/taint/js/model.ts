/**
 * Route handlers, members and writes in Express, Koa, Fastify, Next.js and Node, for the JS
 * interpreter: which parameters a framework fills with a request and a response, which members are
 * sources (request fields, argv, env, stdin), and which writes are sinks (`ctx.body`, `innerHTML`,
 * the session). What calls do is the table in `js/calls.ts`.
 */
import type { Node } from "../../../treesitter.ts";
import type { Env } from "../analyzer.ts";
import { SQL_WORDS } from "../../rules/sql.ts";
import { EMPTY, setField, snippet, sourceVal, type Val, type Weakness } from "../values.ts";
import { sourceAt as src, stepAt as step } from "../models.ts";
import type { JsHost } from "./host.ts";

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

export type { Modelled } from "../models.ts";

// ---- handlers ------------------------------------------------------------------------------------

const REQ_NAMES = /^_?(?:req|request|httpRequest|incoming)$/;
const RES_NAMES = /^_?(?:res|response|resp|httpResponse|outgoing)$/;
const HTTP_VERBS = /^(?:GET|POST|PUT|PATCH|DELETE|HEAD|OPTIONS)$/;

export const request = (kind = "req"): Val => ({ flows: [], kind, fields: new Map() });
export const response = (kind = "res"): Val => ({ flows: [], kind, meta: {} });

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

export function routeHandlerArgs(a: JsHost, site: JsCall): (Val[] | undefined)[] {
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

export function memberModel(a: JsHost, obj: Val, prop: string, node: Node, env: Env): Val | undefined {
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
export function assignModel(a: JsHost, obj: Val, key: string | undefined, v: Val, node: Node): void {
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

export const NOSQL_TEXT = /mongoose|mongodb|monk|mongojs/;
export { SQL_WORDS };
export type { Weakness };
