/**
 * The registry's plug point for external servers (RegistryOptions.external): an ExternalServerSpec —
 * an `http(s)://` URL, a `stdio:` command, or a directory whose parameter.yaml `path:` is a URL or a
 * `.py` script — opened with createMcpServer. The directory's parameter.yaml, when there is one, is
 * the server's defaults (written into the file its `build` tool reads, so auto-`$` applies).
 */
import type { ExternalResolver } from "../registry.ts";
import { createMcpServer, type McpServerOptions } from "./client.ts";

export function mcpExternalResolver(
  options: Omit<McpServerOptions, "name" | "cwd" | "parameters"> = {},
): ExternalResolver {
  return (s) =>
    createMcpServer(s.transport === "http" ? { url: s.url } : { command: s.command, args: s.args }, {
      ...options,
      name: s.alias,
      cwd: s.cwd,
      ...(Object.keys(s.parameters).length > 0 ? { parameters: s.parameters } : {}),
    });
}
