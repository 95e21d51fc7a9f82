/**
 * Every failure of an external MCP server surfaces as one McpServerError whose message names the server
 * (and the tool or prompt) and says what happened, so the engine can show it as is: an error result,
 * a protocol error, the process exiting, a timeout, a cancelled call, a server that cannot be reached.
 */
export type McpFailure =
  "tool_error" | "protocol" | "exited" | "timeout" | "aborted" | "connect" | "discovery" | "bad_result";

export class McpServerError extends Error {
  constructor(
    readonly failure: McpFailure,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    // Callers that stop on cancellation test `name === "AbortError"`, as for fetch.
    this.name = failure === "aborted" ? "AbortError" : "McpServerError";
  }

  /** Names the server and what happened, for the pipeline's author (server/errors.ts isUserFacing). */
  get userFacing(): boolean {
    return true;
  }
}

/** The last `max` characters of a child's stderr, for error messages. */
export class OutputTail {
  private text = "";
  constructor(private readonly max = 2000) {}

  push(chunk: string | Buffer) {
    this.text = (this.text + chunk.toString()).slice(-this.max);
  }

  /** "" or "\nLast output on stderr:\n…". */
  suffix(): string {
    const t = this.text.trim();
    return t ? `\nLast output on stderr:\n${t}` : "";
  }
}
