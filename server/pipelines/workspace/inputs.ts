/** What the pipelines router accepts (zod): the service's methods take these parsed shapes. */
import { z } from "zod";
import { pipelineNameSchema, runDatasetSchema } from "../../shared/pipelines.ts";
import { parameterFileSchema } from "./parameters.ts";

/** The largest pipeline source accepted (the editor, a save, a shared draft's save). */
export const MAX_SOURCE = 256 * 1024;

const uid = z.uuid("uid must be a UUID");
const source = z.string().max(MAX_SOURCE, "Keep the pipeline under 256 KB.");
const galleryKey = z.string().min(1).max(100);
const workspaceId = z.string().min(1);

export const validateInput = z.object({
  workspaceId,
  source,
  parameters: parameterFileSchema.optional(),
});
export const createInput = z.object({
  workspaceId,
  name: pipelineNameSchema,
  source,
  parameters: parameterFileSchema.optional(),
});
export const forkInput = z.object({
  workspaceId,
  key: galleryKey,
  name: pipelineNameSchema.optional(),
  /** Preset every retriever to read this knowledge base of the workspace (kb-preset.ts). */
  knowledgeBaseUid: uid.optional(),
});
export const saveInput = z.object({
  uid,
  source,
  parameters: parameterFileSchema.optional(),
  message: z.string().trim().max(500).optional(),
});
export const galleryInput = z.object({ workspaceId, key: galleryKey });
export const diffInput = z.object({ uid, from: z.number().int().min(1), to: z.number().int().min(1) });
/** What a run runs: a workspace pipeline (its newest version) or a gallery entry. */
export const runTarget = z.union([z.object({ uid }), z.object({ workspaceId, key: galleryKey })]);
export const startRunInput = z.object({ target: runTarget, dataset: runDatasetSchema });
export const runsInput = z.object({
  workspaceId,
  pipelineUid: uid.optional(),
  galleryKey: galleryKey.optional(),
  limit: z.number().int().min(1).max(200).default(50),
});
export const runCaseInput = z.object({ uid, case: z.number().int().min(1).default(1) });
export const rerunInput = z.object({ uid });
export const compareRunsInput = z
  .object({ a: uid, b: uid })
  .refine((v) => v.a.toLowerCase() !== v.b.toLowerCase(), { message: "Pick two different runs to compare." });
