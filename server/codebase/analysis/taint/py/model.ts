/**
 * Views, members and writes in Flask, Django and FastAPI/Starlette, for the Python interpreter:
 * which function parameters a framework fills from the request (or a queue), which members are
 * sources (request fields, argv, environment, stdin), and which writes are sinks (the session, a
 * Location header). What calls do is the table in `py/calls.ts`.
 */
import type { Node } from "../../../treesitter.ts";
import type { Env } from "../analyzer.ts";
import { constant, EMPTY, line, setField, snippet, sourceVal, type Origin, type Val } from "../values.ts";
import type { Param, PyHost } from "./host.ts";

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
  a: PyHost,
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

export function pyMemberModel(a: PyHost, obj: Val, attr: string, node: Node, subscript: boolean): Val | undefined {
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
export function pyAssignModel(a: PyHost, obj: Val, key: string | undefined, v: Val, node: Node, keyVal?: Val): void {
  if (obj.kind === "session") {
    a.sink("trust-boundary", v, node, "session store");
    if (keyVal) a.sink("trust-boundary", keyVal, node, "session key");
    a.sink("weak-random", v, node, "session value");
  }
  if (obj.kind === "headers-out" && key?.toLowerCase() === "location") a.sink("redirect", v, node, "Location header");
}

export { constant };
