/**
 * zod schemas for the server descriptions the validator checks steps against. The shape is UltraRAG's
 * own `server.yaml` (spec §3.1): a tool's `input` maps function parameters to pool variables or
 * `$parameter`s, `output` lists the keys it returns. So a built `<name>_server.yaml` section, a
 * hand-written fixture, or an Argus built-in server's self-description all load the same way.
 */
import { z } from "zod";

export const toolSignatureSchema = z.object({
  input: z.record(z.string(), z.string()).default({}),
  output: z.array(z.string()).default([]),
});

export const serverSignatureSchema = z.object({
  tools: z.record(z.string(), toolSignatureSchema).default({}),
  /** MCP prompts; UltraRAG only calls them through the alias `prompt`. */
  prompts: z.record(z.string(), toolSignatureSchema).default({}),
  /** The server's default parameters (its `parameter.yaml`); absent = none. */
  parameters: z.record(z.string(), z.unknown()).default({}),
});

/** server path (as written under `servers:`, e.g. `servers/retriever`) → description. */
export const serverCatalogSchema = z.record(z.string(), serverSignatureSchema);

export type ToolSignature = z.infer<typeof toolSignatureSchema>;
export type ServerSignature = z.infer<typeof serverSignatureSchema>;
export type ServerCatalogRecord = z.infer<typeof serverCatalogSchema>;
