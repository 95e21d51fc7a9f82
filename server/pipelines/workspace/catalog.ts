/**
 * The servers a pipeline saved in a workspace may name: Argus's built-ins only (`servers/<name>` or
 * `argus:servers/<name>`). The YAML comes from users, so external MCP servers (`https://…`,
 * `stdio:…`, a `.py` path) and paths reaching outside the run's directory are unknown here: the
 * validator reports them at their line, and nothing invalid runs.
 */
import { normalizeServerPath, type ServerCatalog } from "../dsl/catalog.ts";
import type { ServerSignature } from "../dsl/schema.ts";
import { BUILTIN_SERVERS } from "../servers/builtins.ts";

const BUILTIN_PATH = /^(?:argus:)?servers\/([A-Za-z0-9_-]+)$/;

let signatures: Promise<Map<string, ServerSignature>> | undefined;

/** Every built-in server's signature (tools, prompts, default parameters), read once per process. */
export function builtinSignatures(): Promise<Map<string, ServerSignature>> {
  signatures ??= (async () => {
    const out = new Map<string, ServerSignature>();
    for (const [name, factory] of Object.entries(BUILTIN_SERVERS)) {
      const server = factory();
      try {
        out.set(name, await server.signature());
      } finally {
        await server.close();
      }
    }
    return out;
  })();
  return signatures;
}

/** The built-in a `servers:` value names, or undefined. */
export function builtinName(serverPath: string): string | undefined {
  const m = BUILTIN_PATH.exec(normalizeServerPath(serverPath));
  return m && Object.hasOwn(BUILTIN_SERVERS, m[1]!) ? m[1] : undefined;
}

export async function builtinCatalog(): Promise<ServerCatalog> {
  const sigs = await builtinSignatures();
  return {
    lookup: (p) => {
      const name = builtinName(p);
      return name ? sigs.get(name) : undefined;
    },
    paths: () => [...sigs.keys()].sort().map((n) => `servers/${n}`),
  };
}
