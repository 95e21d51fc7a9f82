/**
 * What the validator needs to know about servers, and nothing more: which server paths exist and the
 * tools/prompts each has with their inputs and outputs. The engine's server registry will implement
 * this interface (built-in TypeScript servers, external MCP servers after list_tools); tests use a
 * plain record.
 */
import { serverCatalogSchema, type ServerSignature, type ToolSignature } from "./schema.ts";

export interface ServerCatalog {
  /** The server an alias's path names, or undefined if there is none. */
  lookup(path: string): ServerSignature | undefined;
  /** Known paths, for "did you mean" hints. */
  paths(): string[];
}

/** Paths are compared without a trailing slash or leading `./`, as UltraRAG resolves them relative to the CWD. */
export const normalizeServerPath = (path: string) =>
  path
    .trim()
    .replace(/^(\.\/)+/, "")
    .replace(/\/+$/, "");

/** A catalog over a plain record (validated with zod, so a YAML/JSON description can be passed as is). */
export function catalogFromRecord(record: unknown): ServerCatalog {
  const parsed = serverCatalogSchema.parse(record);
  const byPath = new Map(Object.entries(parsed).map(([path, sig]) => [normalizeServerPath(path), sig]));
  return {
    lookup: (path) => byPath.get(normalizeServerPath(path)),
    paths: () => [...byPath.keys()],
  };
}

export type Callable = { kind: "tool" | "prompt"; signature: ToolSignature };

/**
 * Finds `name` on a server the way UltraRAG calls it: the alias `prompt` uses get_prompt, every other
 * alias call_tool (spec §1.1). `misplacedPrompt` reports a prompt reached through another alias.
 */
export function findCallable(
  server: ServerSignature,
  alias: string,
  name: string,
): Callable | { misplacedPrompt: true } | undefined {
  if (alias === "prompt") {
    const prompt = server.prompts[name];
    if (prompt) return { kind: "prompt", signature: prompt };
  }
  const tool = server.tools[name];
  if (tool) return { kind: "tool", signature: tool };
  if (alias !== "prompt" && server.prompts[name]) return { misplacedPrompt: true };
  return undefined;
}
