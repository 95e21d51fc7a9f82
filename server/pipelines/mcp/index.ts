/** External MCP servers as pipeline servers, and pipeline servers as MCP servers. */
export { createMcpServer, type McpServerOptions } from "./client.ts";
export { McpServerError, type McpFailure } from "./errors.ts";
export { serveMcpHttp, type HttpServeOptions, type HttpServing } from "./http.ts";
export { mcpExternalResolver } from "./resolver.ts";
export { serveMcp, type McpServing, type ServeOptions } from "./serve.ts";
export { McpSpecError, parseServerRef, type McpServerSpec, type McpServerSpecInput } from "./spec.ts";
