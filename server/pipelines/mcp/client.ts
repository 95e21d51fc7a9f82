/**
 * createMcpServer: a PipelineServer backed by an external MCP server — a local process over stdio or a
 * Streamable HTTP endpoint — so the engine runs its tools exactly like a built-in server's.
 *
 * The connection opens on first use and is kept until close(). The child gets PATH, HOME and LANG plus
 * the spec's `env` (the SDK also passes LOGNAME, SHELL, TERM, USER), never the parent's secrets unless
 * `inheritEnv` asks. Every failure becomes an McpServerError naming the server and the tool.
 *
 * This file only composes the parts over the shared McpTarget (target.ts): connection.ts (opening,
 * keeping and closing the connection), discovery.ts (the signature), calls.ts (one tool or prompt call).
 */
import type { ServerSignature } from "../dsl/schema.ts";
import type { PipelineServer } from "../servers/contract.ts";
import { createCallAttempt, sessionGone } from "./calls.ts";
import { createConnector } from "./connection.ts";
import { discoverSignature } from "./discovery.ts";
import { isHttpSpec, type McpServerSpec, type McpServerSpecInput } from "./spec.ts";
import { mcpTarget, type McpServerOptions } from "./target.ts";

export type { McpServerOptions } from "./target.ts";

export function createMcpServer(
  specInput: McpServerSpecInput | McpServerSpec,
  options: McpServerOptions,
): PipelineServer {
  const t = mcpTarget(specInput, options);
  const connector = createConnector(t);
  const attempt = createCallAttempt(t);
  let signature: Promise<ServerSignature> | undefined;

  const discover = async () => discoverSignature(t, await connector.open());

  return {
    name: options.name,

    signature() {
      signature ??= discover().catch((err: unknown) => {
        signature = undefined;
        throw err;
      });
      return signature;
    },

    async call(kind, name, args, ctx) {
      const sig = await this.signature();
      try {
        return await attempt(await connector.open(), kind, name, args, ctx, sig, isHttpSpec(t.spec));
      } catch (err) {
        // The HTTP server forgot our session (restart, eviction): it never ran the call, so start a
        // new session and send it once more, as the MCP spec asks of clients on 404.
        if (!sessionGone(err)) throw err;
        connector.reset();
        return attempt(await connector.open(), kind, name, args, ctx, sig, false);
      }
    },

    close: () => connector.close(),
  };
}
