/**
 * What Express responses, Fastify replies and Koa contexts do with what they are given: HTML
 * bodies (unless the content type says otherwise), redirects, files sent, cookies and headers.
 */
import type { Node } from "../../../treesitter.ts";
import { sourceAt as src, type Modelled } from "../models.ts";
import { EMPTY, type Val } from "../values.ts";
import type { JsHost } from "./host.ts";
import type { JsCall } from "./model.ts";

export function koaCall(a: JsHost, site: JsCall): Modelled {
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

export function responseCall(a: JsHost, site: JsCall, res: Val): Modelled {
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

function headerWrite(a: JsHost, res: Val, name: string, v: Val, node: Node): void {
  const k = name.toLowerCase();
  if (k === "location") a.sink("redirect", v, node, "Location header");
  if (k === "content-type") res.meta = { ...res.meta, type: v.hasConst ? String(v.c) : "unknown" };
  if (k === "set-cookie" && v.hasConst && !(/;\s*secure/i.test(String(v.c)) && /;\s*httponly/i.test(String(v.c))))
    a.config("cookie", node, "a cookie is set without Secure and HttpOnly");
}

export function replyCall(a: JsHost, site: JsCall, reply: Val): Modelled {
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

export function headerValue(headers: Val | undefined, name: string): string | undefined {
  for (const [k, v] of headers?.fields ?? []) if (k.toLowerCase() === name && v.hasConst) return String(v.c);
  return undefined;
}

export function truthy(v: Val | undefined): boolean {
  return !!v?.hasConst && !!v.c;
}

/** Missing Secure / HttpOnly (Koa's cookies are HttpOnly by default; only Secure is needed there). */
export function cookieCheck(a: JsHost, site: JsCall, opts: Val | undefined, framework: string): void {
  const secure = truthy(opts?.fields?.get("secure"));
  const httpOnly =
    framework === "koa" ? opts?.fields?.get("httpOnly")?.c !== false : truthy(opts?.fields?.get("httpOnly"));
  if (opts && !opts.fields && !opts.hasConst) return; // options built elsewhere: unknown
  const missing = [secure ? null : "Secure", httpOnly ? null : "HttpOnly"].filter(Boolean);
  if (missing.length) a.config("cookie", site.node, `a cookie is set without ${missing.join(" and ")}`);
}
