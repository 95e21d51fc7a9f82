/**
 * The pipeline builder's assistant: the user describes a change, the workspace's model proposes new
 * YAML and/or parameter values, and the engine's validator checks the proposal before anyone sees it.
 * An invalid proposal is sent back once with its errors; a second invalid one is refused with them.
 * Nothing is saved here: the browser shows the proposal as a diff and, when accepted, makes it the
 * unsaved draft. Members only (a proposal costs model tokens); the model never sees secret values.
 */
import { readdirSync } from "node:fs";
import path from "node:path";
import { z } from "zod";
import { requireRole, type Actor } from "../../auth/access.ts";
import type { Db } from "../../db/client.ts";
import { DomainError, invalid, notFound } from "../../errors.ts";
import {
  createLlmClient,
  LlmError,
  PROVIDER_INFO,
  userText,
  type LlmClient,
  type LlmClientOptions,
  type Message,
} from "../../llm/index.ts";
import type { Logger } from "../../logger.ts";
import { explainModelError } from "../../ask/answer.ts";
import { formatDiagnostic } from "../dsl/errors.ts";
import { aliasParameters } from "../dsl/params.ts";
import { parsePipeline } from "../dsl/parse.ts";
import { builtinCatalog } from "../workspace/catalog.ts";
import { lineDiff } from "../workspace/diff.ts";
import { GALLERY_DIR } from "../workspace/gallery.ts";
import { inspectPipeline, serverRegistry } from "../workspace/inspect.ts";
import { assertPathsInside, parameterFileSchema } from "../workspace/parameters.ts";
import { stringify } from "yaml";
import { applyParameters, maskSecrets, MAX_YAML, readAnswer } from "./proposal.ts";
import { retryPrompt, SYSTEM, userPrompt } from "./prompt.ts";

const MAX_OUTPUT_TOKENS = 8192;
const TIMEOUT_MS = 120_000;

export const proposeInput = z.object({
  uid: z.uuid("uid must be a UUID"),
  request: z
    .string()
    .trim()
    .min(3, "Describe the change you want (a few words at least).")
    .max(2000, "Keep the request under 2,000 characters."),
  /** The draft as the builder shows it (unsaved edits included). */
  source: z.string().max(MAX_YAML, "The pipeline is too large for the assistant (over 64 KB)."),
  parameters: parameterFileSchema,
});

export interface AssistantDeps {
  db: Db;
  log: Logger;
  /** The workspace's model, null when none is configured. */
  chatModel: (workspaceId: string) => Promise<LlmClientOptions | null>;
  /** Test seam. */
  clientFor?: (options: LlmClientOptions) => LlmClient;
}

let templateCache: string[] | undefined;
function galleryTemplates(): string[] {
  templateCache ??= readdirSync(path.join(GALLERY_DIR, "prompt"))
    .filter((f) => f.endsWith(".jinja"))
    .sort()
    .map((f) => `prompt/${f}`);
  return templateCache;
}

const paramsYaml = (v: Record<string, unknown>) =>
  Object.keys(v).length ? stringify(v, { indentSeq: false, lineWidth: 0 }) : "";

export function createPipelineAssistant(deps: AssistantDeps) {
  const clientFor =
    deps.clientFor ??
    ((o: LlmClientOptions) =>
      createLlmClient({ ...o, maxTokens: MAX_OUTPUT_TOKENS, requestTimeoutMs: TIMEOUT_MS, idleTimeoutMs: TIMEOUT_MS }));

  /** Checks one answer: readable, only this pipeline's files, and valid for the engine. */
  async function check(text: string, input: z.infer<typeof proposeInput>, name: string) {
    const read = readAnswer(text);
    if (!read.ok) return { errors: [read.error] };
    const source = read.value.yaml ?? input.source;
    const pipeline = parsePipeline(source, { file: `${name}.yaml` }).pipeline;
    const aliases = pipeline?.servers.map((s) => s.alias) ?? [];
    // An alias missing from the file runs on its server's defaults: changes are merged into those.
    const effective = pipeline ? aliasParameters(pipeline, await builtinCatalog(), input.parameters) : {};
    const applied = applyParameters(input.parameters, read.value.parameters, {
      effective,
      aliases,
      templates: galleryTemplates(),
    });
    if (!applied.ok) return { errors: [applied.error] };
    const parameters = applied.value.parameters;
    try {
      assertPathsInside(parameters as never);
    } catch (err) {
      return { errors: [(err as Error).message] };
    }
    const inspection = await inspectPipeline(source, { file: `${name}.yaml`, parameters });
    const errors = inspection.diagnostics.filter((d) => d.severity === "error").map(formatDiagnostic);
    if (errors.length) return { errors: errors.slice(0, 10) };
    if (source === input.source && JSON.stringify(parameters) === JSON.stringify(input.parameters))
      return { errors: ["the proposal changes nothing"] };
    return {
      errors: [],
      proposal: {
        summary: read.value.summary,
        source,
        parameters,
        ignoredSecrets: applied.value.ignoredSecrets,
        diff: {
          source: lineDiff(input.source, source),
          parameters: lineDiff(paramsYaml(input.parameters), paramsYaml(parameters)),
        },
      },
    };
  }

  return {
    /** Whether the assistant can answer in this workspace, and with which model. */
    async status(actor: Actor, workspaceId: string) {
      await requireRole(deps.db, actor, workspaceId, "viewer");
      const options = await deps.chatModel(workspaceId);
      if (!options) return { configured: false as const, model: null };
      return {
        configured: true as const,
        model: `${PROVIDER_INFO[options.provider].label} / ${options.model ?? PROVIDER_INFO[options.provider].defaultModel ?? "default"}`,
      };
    },

    async propose(actor: Actor, input: z.infer<typeof proposeInput>) {
      const row = await deps.db.pipeline.findUnique({ where: { uid: input.uid } });
      if (!row) throw notFound(`No pipeline with id ${input.uid}. It may have been deleted.`);
      await requireRole(deps.db, actor, row.workspaceId, "member");
      const options = await deps.chatModel(row.workspaceId);
      if (!options)
        throw invalid(
          "No model is configured for this workspace: an owner adds one in Settings → Model providers (or the server sets ANTHROPIC_API_KEY / OPENAI_API_KEY).",
        );
      const llm = clientFor(options);
      const messages: Message[] = [
        userText(
          userPrompt({
            request: input.request,
            source: input.source,
            parameters: maskSecrets(input.parameters),
            servers: await serverRegistry(),
            templates: galleryTemplates(),
          }),
        ),
      ];
      let errors: string[] = [];
      for (let attempt = 0; attempt < 2; attempt++) {
        if (attempt === 1) messages.push(userText(retryPrompt(errors)));
        let text: string;
        try {
          const answer = await llm.complete({ system: SYSTEM, messages, signal: AbortSignal.timeout(TIMEOUT_MS) });
          text = answer.text;
          messages.push({ role: "assistant", content: [{ type: "text", text: text.slice(0, 20_000) }] });
        } catch (err) {
          if (err instanceof LlmError) throw new DomainError("invalid", explainModelError(err.message));
          throw err;
        }
        const checked = await check(text, input, row.name);
        if (checked.proposal) return { ...checked.proposal, attempts: attempt + 1 };
        errors = checked.errors;
        deps.log.info({ pipeline: row.uid, attempt, errors }, "pipeline assistant: proposal refused");
      }
      throw invalid(`The assistant's proposal was not valid, so nothing was changed: ${errors.join("; ")}`);
    },
  };
}

export type PipelineAssistant = ReturnType<typeof createPipelineAssistant>;
