/**
 * GitHub's own OpenAPI description (@octokit/openapi, api.github.com) as a request checker for the
 * forge stand-in: the operation (method + path template), its path and query parameters, and the
 * JSON body against the operation's request schema (ajv; OpenAPI 3.0's `nullable` is ajv's own).
 * Loaded once per test process (13 MB of JSON; ~2 s).
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import Ajv, { type ValidateFunction } from "ajv";

interface Parameter {
  name: string;
  in: "path" | "query" | "header";
  required?: boolean;
  schema?: { type?: string; enum?: unknown[] };
  $ref?: string;
}
interface Operation {
  operationId: string;
  parameters?: Parameter[];
  requestBody?: { required?: boolean; content: Record<string, unknown> };
}
interface Spec {
  paths: Record<string, Record<string, Operation>>;
  components: { parameters: Record<string, Parameter>; examples: Record<string, { value: unknown }> };
}

export interface MatchedOperation {
  operationId: string;
  template: string;
  params: Record<string, string>;
}

export type Check = { ok: true; op: MatchedOperation } | { ok: false; status: number; reason: string };

const METHODS = ["get", "post", "put", "patch", "delete"];

export interface GitHubOpenApi {
  check(method: string, url: URL, body: unknown): Check;
  /** A documented example response (components.examples), deep-copied. */
  example<T extends object = Record<string, unknown>>(name: string): T;
}

let loaded: GitHubOpenApi | undefined;

export function gitHubOpenApi(): GitHubOpenApi {
  if (loaded) return loaded;
  const file = createRequire(import.meta.url).resolve("@octokit/openapi/generated/api.github.com.json");
  const spec = JSON.parse(readFileSync(file, "utf8")) as Spec;
  const ajv = new Ajv({ strict: false, allErrors: true, validateFormats: false });
  ajv.addSchema({ $id: "gh", components: spec.components, paths: spec.paths });
  const routes = Object.entries(spec.paths).flatMap(([template, ops]) => {
    const names: string[] = [];
    const pattern = template.replace(/[.*+?^$()|[\]\\]/g, "\\$&").replace(/\{([^}]+)\}/g, (_m, name: string) => {
      names.push(name);
      return "([^/]+)";
    });
    return Object.keys(ops)
      .filter((m) => METHODS.includes(m))
      .map((method) => ({ method, template, regex: new RegExp(`^${pattern}$`), names, op: ops[method]! }));
  });
  // Literal segments win over parameters (/pulls/comments before /pulls/{pull_number}).
  routes.sort((a, b) => a.names.length - b.names.length);
  const bodyValidators = new Map<string, ValidateFunction>();
  const pointer = (s: string) => s.replace(/~/g, "~0").replace(/\//g, "~1");
  const param = (p: Parameter): Parameter =>
    p.$ref ? spec.components.parameters[p.$ref.replace("#/components/parameters/", "")]! : p;

  loaded = {
    check(method, url, body) {
      const path = url.pathname;
      const candidates = routes.filter((r) => r.regex.test(path));
      if (candidates.length === 0) return { ok: false, status: 404, reason: `no GitHub REST path matches ${path}` };
      const route = candidates.find((r) => r.method === method.toLowerCase());
      if (!route)
        return { ok: false, status: 404, reason: `${method} is not an operation of ${candidates[0]!.template}` };
      const values = route.regex.exec(path)!.slice(1).map(decodeURIComponent);
      const params = Object.fromEntries(route.names.map((n, i) => [n, values[i]!]));
      const declared = (route.op.parameters ?? []).map(param);
      for (const p of declared) {
        if (p.in === "path" && p.schema?.type === "integer" && !/^\d+$/.test(params[p.name] ?? ""))
          return { ok: false, status: 422, reason: `path parameter ${p.name} must be an integer` };
        if (p.in === "query" && p.required && !url.searchParams.has(p.name))
          return { ok: false, status: 422, reason: `query parameter ${p.name} is required` };
      }
      const queryNames = new Set(declared.filter((p) => p.in === "query").map((p) => p.name));
      for (const name of url.searchParams.keys())
        if (!queryNames.has(name)) return { ok: false, status: 422, reason: `unknown query parameter ${name}` };
      const requestBody = route.op.requestBody;
      if (!requestBody) {
        if (body !== undefined && method !== "GET" && method !== "DELETE")
          return { ok: false, status: 422, reason: `${route.op.operationId} takes no body` };
      } else {
        if (body === undefined) {
          if (requestBody.required) return { ok: false, status: 422, reason: `${route.op.operationId} needs a body` };
        } else {
          if (!("application/json" in requestBody.content))
            return { ok: false, status: 415, reason: `${route.op.operationId} takes no JSON body` };
          const key = `${route.template} ${route.method}`;
          let validate = bodyValidators.get(key);
          if (!validate) {
            validate = ajv.getSchema(
              `gh#/paths/${pointer(route.template)}/${route.method}/requestBody/content/application~1json/schema`,
            )!;
            bodyValidators.set(key, validate);
          }
          if (!validate(body))
            return {
              ok: false,
              status: 422,
              reason: `${route.op.operationId} body: ${ajv.errorsText(validate.errors, { dataVar: "body" })}`,
            };
        }
      }
      return { ok: true, op: { operationId: route.op.operationId, template: route.template, params } };
    },
    example<T extends object>(name: string): T {
      const ex = spec.components.examples[name];
      if (!ex) throw new Error(`GitHub's OpenAPI description has no example ${name}`);
      return structuredClone(ex.value) as T;
    },
  };
  return loaded;
}
