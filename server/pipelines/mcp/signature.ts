/**
 * Learning an external server's ServerSignature (UltraRAG's server.yaml shape). MCP's tool list has
 * input schemas but not UltraRAG's output names, so, best first:
 *   1. the server's own `build` tool wrote server.yaml (UltraRAG servers and `argus mcp serve` both
 *      have one) — the exact mapping, auto-`$` included; see client.ts for the call;
 *   2. per tool, `_meta["argus/io"]` (what `argus mcp serve` publishes, so it also works remotely);
 *   3. `annotations.output`, the `output=` string UltraRAG's FastMCP servers carry in list_tools;
 *   4. otherwise each input-schema property maps to the same-named variable (`$name` if it is a
 *      parameter) and the outputs are the outputSchema's properties.
 * A prompt with no declared output stores its messages under `prompt_ls`, UltraRAG's convention.
 */
import { z } from "zod";
import { toolSignatureSchema, type ServerSignature, type ToolSignature } from "../dsl/schema.ts";
import { signatureFromSpec } from "../servers/io-spec.ts";
import { formatZodIssues } from "../../shared/zod-issues.ts";

export const IO_META = "argus/io";
export const PARAMETERS_META = "argus/parameters";
export const DEFAULT_PROMPT_OUTPUT = "prompt_ls";
/** UltraRAG excludes its build tool from server.yaml; so do we. */
export const BUILD_TOOL = "build";

const record = z.record(z.string(), z.unknown());
const optionalObject = <T extends z.ZodType>(s: T) => s.optional().catch(undefined);

export const listedToolSchema = z.looseObject({
  name: z.string(),
  inputSchema: optionalObject(z.looseObject({ properties: optionalObject(record) })),
  outputSchema: optionalObject(z.looseObject({ properties: optionalObject(record) })),
  annotations: optionalObject(z.looseObject({ output: optionalObject(z.string()) })),
  _meta: optionalObject(record),
});

export const listedPromptSchema = z.looseObject({
  name: z.string(),
  arguments: optionalObject(z.array(z.looseObject({ name: z.string() }))),
  _meta: optionalObject(record),
});

export type ListedTool = z.infer<typeof listedToolSchema>;
export type ListedPrompt = z.infer<typeof listedPromptSchema>;

/** A name a step can call: `alias.tool` is split on its only dot, so a dotted name is unreachable. */
const callable = (name: string) => name !== "" && !name.includes(".");

function fromMeta(meta: Record<string, unknown> | undefined): ToolSignature | undefined {
  const r = toolSignatureSchema.safeParse(meta?.[IO_META]);
  return r.success ? r.data : undefined;
}

export function signatureFromListings(
  tools: ListedTool[],
  prompts: ListedPrompt[],
  parameters: Record<string, unknown>,
): ServerSignature {
  const keys = new Set(Object.keys(parameters));
  const sig: ServerSignature = { tools: {}, prompts: {}, parameters };
  for (const t of tools) {
    if (t.name === BUILD_TOOL || !callable(t.name)) continue;
    const params = Object.keys(t.inputSchema?.properties ?? {});
    const declared = fromMeta(t._meta);
    if (declared) sig.tools[t.name] = declared;
    else if (t.annotations?.output !== undefined) sig.tools[t.name] = safeSpec(params, t.annotations.output, keys);
    else
      sig.tools[t.name] = {
        input: signatureFromSpec(params, undefined, keys).input,
        output: Object.keys(t.outputSchema?.properties ?? {}),
      };
  }
  for (const p of prompts) {
    if (!callable(p.name)) continue;
    const params = (p.arguments ?? []).map((a) => a.name);
    const declared = fromMeta(p._meta);
    sig.prompts[p.name] = declared ?? {
      input: signatureFromSpec(params, undefined, keys).input,
      output: [DEFAULT_PROMPT_OUTPUT],
    };
  }
  return sig;
}

/** A malformed `output=` string (two arrows) falls back to same-named inputs rather than failing the server. */
function safeSpec(params: string[], spec: string, keys: Set<string>): ToolSignature {
  try {
    return signatureFromSpec(params, spec, keys);
  } catch {
    return signatureFromSpec(params, undefined, keys);
  }
}

const entries = z.preprocess(
  (v) => v ?? {},
  z.record(
    z.string(),
    z.preprocess((v) => v ?? {}, toolSignatureSchema),
  ),
);
const serverYamlSchema = z.looseObject({ tools: entries, prompts: entries });

/** server.yaml as written by a `build` tool (UltraRAG's or ours) → signature; throws a readable zod message. */
export function signatureFromServerYaml(doc: unknown, parameters: Record<string, unknown>): ServerSignature {
  const r = serverYamlSchema.safeParse(doc);
  if (!r.success)
    throw new Error(`server.yaml is not in UltraRAG's format: ${formatZodIssues(r.error, { separator: "; " })}`);
  const pick = (m: Record<string, ToolSignature>, skipBuild: boolean) =>
    Object.fromEntries(Object.entries(m).filter(([n]) => callable(n) && !(skipBuild && n === BUILD_TOOL)));
  return { tools: pick(r.data.tools, true), prompts: pick(r.data.prompts, false), parameters };
}
