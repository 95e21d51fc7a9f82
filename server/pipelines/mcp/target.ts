/**
 * The external MCP server a client talks to, as the client's parts share it (connection.ts,
 * discovery.ts, calls.ts): the options it was created with, the parsed spec and its label for
 * messages, the timeouts, and the tail of the child's stderr.
 */
import { McpServerError, OutputTail } from "./errors.ts";
import { describeSpec, isHttpSpec, mcpServerSpecSchema, type McpServerSpec, type McpServerSpecInput } from "./spec.ts";

export interface McpServerOptions {
  /** The server's name in messages and in `PipelineServer.name` (the alias or the `servers:` value). */
  name: string;
  /** Where a relative `cwd` of a stdio spec resolves (the pipeline's working directory). */
  cwd?: string;
  /**
   * The server's default parameters (its parameter.yaml, when the pipeline has one for it): written
   * into the parameter file its `build` tool reads (so UltraRAG's auto-`$` applies) and returned as
   * the signature's `parameters`.
   */
  parameters?: Record<string, unknown>;
  /**
   * How to learn the signature: "auto" (build tool when it can share files with us, else the tool
   * lists), "build" (build tool or fail), "list" (tool lists only).
   */
  discovery?: "auto" | "build" | "list";
  /** Per tool/prompt call, in total. Default 10 minutes (a batch of LLM generations is slow). */
  timeoutMs?: number;
  /** Connecting and signature discovery. Default 60 s (a Python server importing torch is slow). */
  connectTimeoutMs?: number;
  /** Each chunk the child writes to stderr (it is otherwise only kept for error messages). */
  onStderr?: (chunk: string) => void;
}

const DEFAULT_TIMEOUT_MS = 10 * 60_000;
const DEFAULT_CONNECT_TIMEOUT_MS = 60_000;

export interface McpTarget {
  spec: McpServerSpec;
  options: McpServerOptions;
  /** "MCP server `name` (spec)", how every message names it. */
  label: string;
  timeoutMs: number;
  connectTimeoutMs: number;
  stderr: OutputTail;
}

export function mcpTarget(specInput: McpServerSpecInput | McpServerSpec, options: McpServerOptions): McpTarget {
  const spec = mcpServerSpecSchema.parse(specInput);
  return {
    spec,
    options,
    label: `MCP server \`${options.name}\` (${describeSpec(spec)})`,
    timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    connectTimeoutMs: options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS,
    stderr: new OutputTail(),
  };
}

/** The server went away (the process exited, or the HTTP server hung up) `what`. */
export const lostError = ({ spec, label, stderr }: McpTarget, what: string) =>
  new McpServerError(
    "exited",
    `${label} ${isHttpSpec(spec) ? "closed the connection" : "exited"} ${what}${stderr.suffix()}`,
  );
