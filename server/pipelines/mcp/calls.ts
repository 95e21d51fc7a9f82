/**
 * Calling an external MCP server's tool or prompt once: tokens streamed through progress
 * notifications, the result turned into the step's record, and every failure into an McpServerError
 * naming the server and the call.
 */
import { StreamableHTTPError } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import type { ServerSignature } from "../dsl/schema.ts";
import type { CallContext } from "../servers/contract.ts";
import type { Connection } from "./connection.ts";
import { McpServerError } from "./errors.ts";
import { encodePromptArgs, errorText, promptMessages, toolResultToRecord } from "./results.ts";
import { DEFAULT_PROMPT_OUTPUT } from "./signature.ts";
import { lostError, type McpTarget } from "./target.ts";

/** A Streamable HTTP 404: the server no longer knows our session. */
export const sessionGone = (err: unknown) => err instanceof StreamableHTTPError && err.code === 404;

/** One sending of a call; with `retryable`, a forgotten session is thrown as is (sessionGone) for a retry. */
export type CallAttempt = (
  conn: Connection,
  kind: "tool" | "prompt",
  name: string,
  args: Record<string, unknown>,
  ctx: CallContext,
  sig: ServerSignature,
  retryable: boolean,
) => Promise<Record<string, unknown>>;

export function createCallAttempt(t: McpTarget): CallAttempt {
  const { label, timeoutMs } = t;
  let streamSeq = 0;
  return async (conn, kind, name, args, ctx, sig, retryable) => {
    const what = `${kind} \`${name}\``;
    if (conn.lost) throw lostError(t, `before ${what} (an earlier call ended it)`);
    const entry = (kind === "prompt" ? sig.prompts : sig.tools)[name];
    // Yield once so a pending stderr chunk of a crash is in the tail before we report it.
    const settle = <T>(p: Promise<T>) =>
      p.catch(async (err: unknown) => {
        if (retryable && sessionGone(err)) throw err;
        await new Promise((r) => setImmediate(r));
        throw callError(t, err, what, ctx, conn);
      });
    const request = { signal: ctx.signal, timeout: timeoutMs };
    const token = ctx.onToken ? `argus-${++streamSeq}` : undefined;
    const _meta = token ? { progressToken: token } : undefined;
    if (token) conn.streams.set(token, ctx.onToken!);
    try {
      if (kind === "prompt") {
        const result = await settle(conn.client.getPrompt({ name, arguments: encodePromptArgs(args), _meta }, request));
        const output = entry?.output[0] ?? DEFAULT_PROMPT_OUTPUT;
        return { [output]: promptMessages(result) };
      }
      const result = await settle(conn.client.callTool({ name, arguments: args, _meta }, undefined, request));
      if (result.isError) throw new McpServerError("tool_error", `${label}: ${what} failed: ${errorText(result)}`);
      return toolResultToRecord(result, entry?.output ?? [], `${label}: ${what}`);
    } finally {
      if (token) conn.streams.delete(token);
    }
  };
}

function callError(t: McpTarget, err: unknown, what: string, ctx: CallContext, conn: Connection): McpServerError {
  const { label, timeoutMs } = t;
  if (err instanceof McpServerError) return err;
  if (ctx.signal?.aborted) return new McpServerError("aborted", `${label}: ${what} was cancelled`, { cause: err });
  if (conn.lost || (err instanceof McpError && err.code === ErrorCode.ConnectionClosed))
    return lostError(t, `while running ${what}`);
  if (err instanceof McpError && err.code === ErrorCode.RequestTimeout) {
    return new McpServerError(
      "timeout",
      `${label}: ${what} did not answer within ${timeoutMs / 1000} s (raise timeoutMs if it is expected to take longer)`,
      { cause: err },
    );
  }
  const message =
    err instanceof McpError
      ? err.message.replace(/^MCP error -?\d+: /, "")
      : err instanceof Error
        ? err.message
        : String(err);
  return new McpServerError("protocol", `${label}: ${what} failed: ${message}`, { cause: err });
}
