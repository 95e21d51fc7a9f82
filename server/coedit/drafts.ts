/**
 * What a shared draft is made of and where it goes (the registry's DraftSource): a pipeline's doc
 * starts from its saved YAML and parameters (secrets masked: a masked field keeps the stored secret
 * when saved) and is saved as a new version through the pipelines service — which checks the saver's
 * role, validates and records who saved and who edited since; a prompt's starts from its text and is
 * saved through the prompts service (a built-in prompt is read-only).
 */
import type * as Y from "yjs";
import type { Actor } from "../auth/access.ts";
import type { Db } from "../db/client.ts";
import { invalid, notFound } from "../errors.ts";
import { parameterFileSchema } from "../pipelines/workspace/parameters.ts";
import { MAX_SOURCE } from "../pipelines/workspace/inputs.ts";
import type { PipelineService } from "../pipelines/workspace/service.ts";
import { promptContent, type PromptService } from "../prompts/service.ts";
import { promptText, readPipelineDoc, writePipelineDoc } from "../shared/coedit.ts";
import type { ParsedRoom } from "../shared/rooms.ts";
import type { DraftSource } from "./registry.ts";

export function draftSource(deps: {
  db: Db;
  pipelines: Pick<PipelineService, "draft" | "save">;
  prompts: Pick<PromptService, "update">;
}): DraftSource {
  const prompt = async (uid: string) => {
    const row = await deps.db.prompt.findUnique({ where: { uid }, select: { content: true, isBuiltin: true } });
    if (!row) throw notFound(`No prompt with id ${uid}. It may have been deleted.`);
    return row;
  };
  return {
    async initial(room: ParsedRoom, doc: Y.Doc) {
      if (room.kind === "pipeline") writePipelineDoc(doc, await deps.pipelines.draft(room.uid));
      else promptText(doc).insert(0, (await prompt(room.uid)).content);
    },
    async readOnly(room: ParsedRoom) {
      return room.kind === "prompt" && (await prompt(room.uid)).isBuiltin;
    },
    async save(actor: Actor, room: ParsedRoom, doc: Y.Doc, editedBy: string[], message?: string) {
      if (room.kind === "pipeline") {
        // In the saved file's order: a version's diff shows what changed, not a reordering.
        const draft = readPipelineDoc(doc, (await deps.pipelines.draft(room.uid)).parameters);
        const parameters = parameterFileSchema.safeParse(draft.parameters);
        if (!parameters.success)
          throw invalid(`The parameters cannot be saved: ${parameters.error.issues[0]?.message}`);
        if (draft.source.length > MAX_SOURCE) throw invalid("Keep the pipeline under 256 KB to save it.");
        const saved = await deps.pipelines.save(
          actor,
          { uid: room.uid, source: draft.source, parameters: parameters.data, message },
          { editedBy: editedBy.length ? editedBy : [actor!.userId] },
        );
        return { version: saved.version };
      }
      const content = promptContent.safeParse(promptText(doc).toString());
      if (!content.success) throw invalid(content.error.issues[0]?.message ?? "The prompt text cannot be saved.");
      const saved = await deps.prompts.update(actor, { uid: room.uid, content: content.data });
      return { version: saved.version };
    },
  };
}
