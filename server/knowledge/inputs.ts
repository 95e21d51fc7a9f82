/** What the knowledge-base service accepts (zod): a new base, an edit, new chunking settings, a search. */
import { z } from "zod";
import { chunkingSchema } from "./chunking.ts";

const baseName = z
  .string()
  .trim()
  .min(1, "Give the knowledge base a name.")
  .max(120, "Keep the name under 120 characters.");
const description = z.string().trim().max(2000, "Keep the description under 2,000 characters.");

export const createBaseInput = z.object({
  workspaceId: z.string().min(1),
  name: baseName,
  description: description.optional(),
  chunking: chunkingSchema.optional(),
  // "hash" was the only value before the local embedder replaced it: still accepted, built as local.
  embedder: z
    .enum(["local", "hash"], { error: 'Knowledge bases use the built-in "local" embedder for now.' })
    .default("local")
    .transform(() => "local" as const),
});
export const updateBaseInput = z.object({
  uid: z.uuid("uid must be a UUID"),
  name: baseName.optional(),
  description: description.nullable().optional(),
});
export const chunkingInput = z.object({ uid: z.uuid("uid must be a UUID"), chunking: chunkingSchema });
export const searchInput = z.object({
  uid: z.uuid("uid must be a UUID"),
  query: z.string().max(8192, "Keep the query under 8,192 characters."),
  mode: z.enum(["hybrid", "fulltext", "vector"]).default("hybrid"),
  k: z.number().int().min(1).max(100).default(10),
});
