/** What the pipeline chat router accepts (zod): the service's methods take these parsed shapes. */
import { z } from "zod";
import { chatMessageText, chatTargetSchema, chatTitle } from "../../shared/pipeline-chat.ts";

const uid = z.uuid("uid must be a UUID");
export const chatCreateInput = z.object({ target: chatTargetSchema });
export const chatSendInput = z.object({
  uid,
  text: chatMessageText,
  /** Run the whole pipeline on this question even though the session has answers (UltraRAG's force_full_pipeline). */
  fullPipeline: z.boolean().optional(),
});
export const chatRenameInput = z.object({ uid, name: chatTitle });
export const chatExportInput = z.object({ uid, format: z.enum(["markdown", "docx"]) });
