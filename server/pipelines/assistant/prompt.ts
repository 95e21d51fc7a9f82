/** What the builder assistant's model is told: the task, the answer format, and the pipeline as it stands. */
import { stringify } from "yaml";

export const SYSTEM = `You edit UltraRAG pipelines for the Argus pipeline builder.
A pipeline is YAML: \`servers:\` maps aliases to built-in servers (servers/<name>), \`pipeline:\` lists steps
as alias.tool (with loop: and branch: blocks). Parameters are a separate file: alias → values.
Use only the built-in servers and tools listed below. Keep everything the user did not ask to change.

Answer with exactly one JSON object and nothing else:
{"summary": "<one or two sentences: what you changed>",
 "yaml": "<the whole new pipeline YAML, or null when the YAML stays>",
 "parameters": {"<alias>": {"<key>": <value>}} or null}
"parameters" holds only the values to change; they are merged into the current file. Never set API keys,
tokens or passwords. A prompt template must be one of the listed templates.`;

export interface PromptContext {
  request: string;
  source: string;
  parameters: Record<string, unknown>;
  servers: { server: string; tools: { tool: string; doc: string }[] }[];
  templates: readonly string[];
}

export function userPrompt(c: PromptContext): string {
  const servers = c.servers
    .map((s) => `- servers/${s.server}: ${s.tools.map((t) => `${t.tool} (${t.doc.slice(0, 100)})`).join("; ")}`)
    .join("\n");
  const params = Object.keys(c.parameters).length ? stringify(c.parameters, { lineWidth: 0 }) : "{}\n";
  return [
    `Change requested: ${c.request}`,
    "",
    "Current pipeline YAML:",
    "```yaml",
    c.source.trimEnd(),
    "```",
    "",
    "Current parameter file:",
    "```yaml",
    params.trimEnd(),
    "```",
    "",
    "Built-in servers and their tools:",
    servers,
    "",
    `Prompt templates: ${c.templates.join(", ")}`,
  ].join("\n");
}

export const retryPrompt = (errors: string[]) =>
  `Your proposal was not valid, so it was not shown:\n${errors.map((e) => `- ${e}`).join("\n")}\nAnswer again with the corrected JSON object only.`;
