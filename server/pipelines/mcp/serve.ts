/**
 * serveMcp: exposes any PipelineServer (a built-in Argus server, or a test one) to MCP clients over a
 * transport — what `argus mcp serve` runs. Tools get JSON-schema inputs from the signature (pool inputs
 * required, `$parameter` inputs optional with the server's default), results as structuredContent plus
 * the same JSON as text; prompts are MCP prompts; a `build` tool writes server.yaml + parameter.yaml as
 * UltraRAG's servers do. Each tool and prompt also carries its exact UltraRAG mapping in
 * `_meta["argus/io"]`, so Argus's client learns the signature even from a remote host.
 *
 * This uses the SDK's low-level Server: McpServer wants each tool's schema as zod at registration,
 * while these come from a signature known only at run time.
 */
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import {
  CallToolRequestSchema,
  ErrorCode,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListToolsRequestSchema,
  McpError,
  type Tool,
} from "@modelcontextprotocol/sdk/types.js";
import type { ServerSignature, ToolSignature } from "../dsl/schema.ts";
import type { CallContext, PipelineServer } from "../servers/contract.ts";
import { BuildRefused, writeBuildFiles } from "./build-files.ts";
import { decodePromptArgs, toErrorResult, toPromptMessages, toToolResult } from "./results.ts";
import { BUILD_TOOL, IO_META, PARAMETERS_META } from "./signature.ts";
import { STDIO_PREFIX } from "./spec.ts";

export interface ServeOptions {
  /** Relative paths in arguments and in `build` resolve here; default the process's directory. */
  cwd?: string;
  /** What server.yaml's `path:` says when a client builds: how to reach this server (URL or command). */
  advertisedPath?: string;
}

export interface McpServing {
  close(): Promise<void>;
}

type Extra = {
  signal: AbortSignal;
  _meta?: { progressToken?: string | number };
  sendNotification: (n: {
    method: "notifications/progress";
    params: { progressToken: string | number; progress: number; message?: string };
  }) => Promise<void>;
};

/** `q_ls` → "pool variable q_ls"; `$top_k` → "parameter top_k". */
const describeInput = (source: string) =>
  source.startsWith("$") ? `parameter ${source.slice(1)}` : `pool variable ${source}`;

function toolSchema(sig: ToolSignature, parameters: Record<string, unknown>): Tool["inputSchema"] {
  const properties: Record<string, object> = {};
  const required: string[] = [];
  for (const [param, source] of Object.entries(sig.input)) {
    const fromParameter = source.startsWith("$");
    const dflt = fromParameter ? parameters[source.slice(1)] : undefined;
    properties[param] = {
      description: `UltraRAG input: ${describeInput(source)}`,
      ...(dflt !== undefined ? { default: dflt } : {}),
    };
    if (!fromParameter || dflt === undefined) required.push(param);
  }
  return { type: "object", properties, ...(required.length ? { required } : {}) };
}

function listTools(serverName: string, sig: ServerSignature): Tool[] {
  const tools: Tool[] = Object.entries(sig.tools).map(([name, t]) => ({
    name,
    description: `${serverName}.${name}: ${Object.values(t.input).join(", ") || "no inputs"} → ${t.output.join(", ") || "no outputs"}`,
    inputSchema: toolSchema(t, sig.parameters),
    outputSchema: { type: "object", properties: Object.fromEntries(t.output.map((o) => [o, {}])) },
    _meta: { [IO_META]: t },
  }));
  tools.push({
    name: BUILD_TOOL,
    description:
      "Writes server.yaml (and parameter.yaml with this server's defaults, keeping existing values) next to parameter_file, as UltraRAG's build does",
    inputSchema: {
      type: "object",
      properties: { parameter_file: { type: "string", description: "e.g. servers/<name>/parameter.yaml" } },
      required: ["parameter_file"],
    },
    _meta: { [PARAMETERS_META]: sig.parameters },
  });
  return tools;
}

/** Arguments a client left out that come from parameters get the server's default (UltraRAG's client always sends them). */
function withDefaults(
  sig: ToolSignature,
  parameters: Record<string, unknown>,
  args: Record<string, unknown>,
): Record<string, unknown> {
  const out = { ...args };
  for (const [param, source] of Object.entries(sig.input)) {
    if (out[param] === undefined && source.startsWith("$") && parameters[source.slice(1)] !== undefined)
      out[param] = structuredClone(parameters[source.slice(1)]);
  }
  return out;
}

/**
 * Streams the server's tokens back as progress notifications (the client asked for them with a
 * progress token). `flush` waits for every notification to be written, so none arrives after the
 * result (the client drops progress for a finished request).
 */
function tokenSink(extra: Extra): { onToken?: CallContext["onToken"]; flush: () => Promise<unknown> } {
  const token = extra._meta?.progressToken;
  if (token === undefined) return { flush: async () => undefined };
  let n = 0;
  const sent: Promise<void>[] = [];
  const onToken = (text: string) =>
    void sent.push(
      extra
        .sendNotification({
          method: "notifications/progress",
          params: { progressToken: token, progress: ++n, message: text },
        })
        .catch(() => undefined),
    );
  return { onToken, flush: () => Promise.all(sent) };
}

const message = (err: unknown) => (err instanceof Error ? err.message : String(err));

export async function serveMcp(
  server: PipelineServer,
  transport: Transport,
  options: ServeOptions = {},
): Promise<McpServing> {
  const cwd = options.cwd ?? process.cwd();
  const advertisedPath = options.advertisedPath ?? `${STDIO_PREFIX}npx argus mcp serve ${server.name}`;
  const mcp = new Server(
    { name: `argus-${server.name}`, version: "0.1.0" },
    { capabilities: { tools: {}, prompts: {} } },
  );
  const signature = () => server.signature();

  mcp.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: listTools(server.name, await signature()) }));

  mcp.setRequestHandler(CallToolRequestSchema, async (req, extra) => {
    const sig = await signature();
    const { name } = req.params;
    const args = (req.params.arguments ?? {}) as Record<string, unknown>;
    if (name === BUILD_TOOL) {
      try {
        return toToolResult({ ...(await writeBuildFiles(sig, args.parameter_file, { cwd, advertisedPath })) });
      } catch (err) {
        return toErrorResult(err instanceof BuildRefused ? err.message : `build failed: ${message(err)}`);
      }
    }
    const tool = sig.tools[name];
    if (!tool)
      return toErrorResult(
        `${server.name} has no tool \`${name}\`; it has ${Object.keys(sig.tools).join(", ") || "none"}`,
      );
    const tokens = tokenSink(extra as Extra);
    try {
      const ctx: CallContext = { signal: extra.signal, cwd, onToken: tokens.onToken };
      const out = await server.call("tool", name, withDefaults(tool, sig.parameters, args), ctx);
      await tokens.flush();
      return toToolResult(out);
    } catch (err) {
      await tokens.flush();
      return toErrorResult(message(err));
    }
  });

  mcp.setRequestHandler(ListPromptsRequestSchema, async () => {
    const sig = await signature();
    return {
      prompts: Object.entries(sig.prompts).map(([name, p]) => ({
        name,
        description: `${server.name}.${name} → ${p.output.join(", ") || "messages"}`,
        arguments: Object.entries(p.input).map(([arg, source]) => ({
          name: arg,
          description: `UltraRAG input: ${describeInput(source)}; lists and objects as JSON`,
          required: !source.startsWith("$") || sig.parameters[source.slice(1)] === undefined,
        })),
        _meta: { [IO_META]: p },
      })),
    };
  });

  mcp.setRequestHandler(GetPromptRequestSchema, async (req, extra) => {
    const sig = await signature();
    const { name } = req.params;
    const prompt = sig.prompts[name];
    if (!prompt)
      throw new McpError(
        ErrorCode.InvalidParams,
        `${server.name} has no prompt \`${name}\`; it has ${Object.keys(sig.prompts).join(", ") || "none"}`,
      );
    const args = withDefaults(prompt, sig.parameters, decodePromptArgs(req.params.arguments));
    let out: Record<string, unknown>;
    try {
      out = await server.call("prompt", name, args, { signal: extra.signal, cwd });
    } catch (err) {
      throw new McpError(ErrorCode.InternalError, `${server.name} prompt \`${name}\` failed: ${message(err)}`);
    }
    const key = prompt.output[0] ?? Object.keys(out)[0];
    return { messages: toPromptMessages(key === undefined ? [] : out[key]) };
  });

  await mcp.connect(transport);
  return { close: () => mcp.close() };
}
