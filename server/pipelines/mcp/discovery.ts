/**
 * Learning an external MCP server's signature: through its `build` tool when it can share files with
 * us (UltraRAG's server.yaml), else from its tool and prompt lists; per `options.discovery`.
 */
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { parse as parseYaml, stringify as stringifyYaml } from "yaml";
import { z } from "zod";
import type { ServerSignature } from "../dsl/schema.ts";
import type { Connection } from "./connection.ts";
import { McpServerError } from "./errors.ts";
import { errorText } from "./results.ts";
import {
  BUILD_TOOL,
  PARAMETERS_META,
  listedPromptSchema,
  listedToolSchema,
  signatureFromListings,
  signatureFromServerYaml,
} from "./signature.ts";
import { isHttpSpec } from "./spec.ts";
import { lostError, type McpTarget } from "./target.ts";

const listToolsSchema = z.looseObject({ tools: z.array(z.unknown()), nextCursor: z.string().optional() });
const listPromptsSchema = z.looseObject({ prompts: z.array(z.unknown()), nextCursor: z.string().optional() });

export async function discoverSignature(t: McpTarget, conn: Connection): Promise<ServerSignature> {
  const { options, label } = t;
  const mode = options.discovery ?? "auto";
  try {
    const tools = (await listAll(t, conn, "tools/list")).flatMap((x) => parsed(listedToolSchema, x));
    const prompts = conn.client.getServerCapabilities()?.prompts
      ? (await listAll(t, conn, "prompts/list")).flatMap((p) => parsed(listedPromptSchema, p))
      : [];
    const published = tools.find((x) => x.name === BUILD_TOOL)?._meta?.[PARAMETERS_META];
    const defaults = options.parameters ?? (isPlainObject(published) ? published : {});
    const hasBuild = tools.some((x) => x.name === BUILD_TOOL);
    if (mode !== "list" && hasBuild && sharesFiles(t)) {
      try {
        return await viaBuild(t, conn, defaults);
      } catch (err) {
        if (mode === "build") throw err;
        if (conn.lost) throw err;
        // A build tool that is not UltraRAG's (or fails): the listings still describe the server.
      }
    } else if (mode === "build") {
      throw new Error(hasBuild ? "its build tool writes files on another machine" : "it has no `build` tool");
    }
    return signatureFromListings(tools, prompts, defaults);
  } catch (err) {
    if (err instanceof McpServerError) throw err;
    if (conn.lost) throw lostError(t, "while listing its tools");
    throw new McpServerError(
      "discovery",
      `${label}: could not learn its tools: ${err instanceof Error ? err.message : String(err)}`,
      { cause: err },
    );
  }
}

async function listAll(
  { connectTimeoutMs }: McpTarget,
  conn: Connection,
  method: "tools/list" | "prompts/list",
): Promise<unknown[]> {
  const out: unknown[] = [];
  let cursor: string | undefined;
  // Page limit: a server that keeps returning cursors cannot hang discovery.
  for (let page = 0; page < 100; page++) {
    const params = cursor ? { cursor } : {};
    if (method === "tools/list") {
      const r = await conn.client.request({ method, params }, listToolsSchema, { timeout: connectTimeoutMs });
      out.push(...r.tools);
      cursor = r.nextCursor;
    } else {
      const r = await conn.client.request({ method, params }, listPromptsSchema, { timeout: connectTimeoutMs });
      out.push(...r.prompts);
      cursor = r.nextCursor;
    }
    if (!cursor) break;
  }
  return out;
}

/** Only a server on this machine can write a file we then read: a child process, or HTTP on loopback. */
function sharesFiles({ spec }: McpTarget): boolean {
  if (!isHttpSpec(spec)) return true;
  const host = new URL(spec.url).hostname;
  return host === "localhost" || host === "127.0.0.1" || host === "[::1]";
}

async function viaBuild(
  { connectTimeoutMs }: McpTarget,
  conn: Connection,
  defaults: Record<string, unknown>,
): Promise<ServerSignature> {
  const dir = await mkdtemp(path.join(os.tmpdir(), "argus-mcp-build-"));
  try {
    const parameterFile = path.join(dir, "parameter.yaml");
    // UltraRAG's build insists that `path` (the server's code) exists; point it at a file that does.
    // (A directory's own `path:` — a URL, a script relative to somewhere else — is restored below.)
    await writeFile(parameterFile, stringifyYaml({ ...defaults, path: parameterFile }));
    const result = await conn.client.callTool(
      { name: BUILD_TOOL, arguments: { parameter_file: parameterFile } },
      undefined,
      { timeout: connectTimeoutMs },
    );
    if (result.isError) throw new Error(errorText(result));
    const serverYaml = parseYaml(await readFile(path.join(dir, "server.yaml"), "utf8"), { maxAliasCount: 100 });
    // Our own build tool adds its defaults to the parameter file; UltraRAG's leaves it as written.
    const written = (parseYaml(await readFile(parameterFile, "utf8"), { maxAliasCount: 100 }) ?? {}) as Record<
      string,
      unknown
    >;
    if (defaults.path === undefined) delete written.path;
    else written.path = defaults.path;
    return signatureFromServerYaml(serverYaml, written);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

function parsed<T extends z.ZodType>(schema: T, value: unknown): z.infer<T>[] {
  const r = schema.safeParse(value);
  return r.success ? [r.data] : [];
}

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);
