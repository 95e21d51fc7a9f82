/**
 * A knowledge base's chunking settings, in UltraRAG's corpus-server names (spec §5.6
 * `chunk_documents`), so a parameter file and this form say the same thing. Defaults are the ones in
 * UltraRAG's shipped parameter file (sentence backend, character counter, 512, overlap 50, its
 * delimiter list with "\n"). Unlike UltraRAG, which silently shrinks an overlap ≥ chunk_size to a
 * quarter, a form input that makes no sense is refused with the reason.
 */
import { z } from "zod";
import { optionsFromUltrarag, parseDelim, type TextChunkOptions } from "../retrieval/chunk/text.ts";

export const MIN_CHUNK_SIZE = 16;
export const MAX_CHUNK_SIZE = 8192;
export const DEFAULT_DELIM = [".", "!", "?", "；", "。", "！", "？", "\n"];

const overlap = z
  .number({ error: "chunk_overlap must be a whole number" })
  .int("chunk_overlap must be a whole number")
  .min(0, "chunk_overlap cannot be negative");

export const chunkingSchema = z
  .object({
    chunk_backend: z
      .enum(["token", "sentence", "recursive"], { error: 'chunk_backend must be "token", "sentence" or "recursive"' })
      .default("sentence"),
    tokenizer_or_token_counter: z
      .enum(["word", "character"], {
        error:
          'tokenizer_or_token_counter must be "word" or "character" (tiktoken encodings are not available offline)',
      })
      .default("character"),
    chunk_size: z
      .number({ error: "chunk_size must be a number" })
      .int("chunk_size must be a whole number")
      .min(MIN_CHUNK_SIZE, `chunk_size must be at least ${MIN_CHUNK_SIZE}`)
      .max(MAX_CHUNK_SIZE, `chunk_size must be at most ${MAX_CHUNK_SIZE}`)
      .default(512),
    use_title: z.boolean().default(false),
    chunk_backend_configs: z
      .object({
        token: z.object({ chunk_overlap: overlap.default(50) }).prefault({}),
        sentence: z
          .object({
            chunk_overlap: overlap.default(50),
            min_sentences_per_chunk: z
              .number()
              .int("min_sentences_per_chunk must be a whole number")
              .min(1, "min_sentences_per_chunk must be at least 1")
              .max(100, "min_sentences_per_chunk must be at most 100")
              .default(1),
            // A list, or UltraRAG's string form "['.', '!', '\\n']".
            delim: z
              .union([
                z
                  .array(
                    z.string().min(1, "a delimiter cannot be empty").max(10, "a delimiter is at most 10 characters"),
                  )
                  .min(1, "give at least one delimiter")
                  .max(50, "at most 50 delimiters"),
                z.string().max(500),
              ])
              .default(DEFAULT_DELIM),
          })
          .prefault({}),
        recursive: z
          .object({
            min_characters_per_chunk: z
              .number()
              .int("min_characters_per_chunk must be a whole number")
              .min(1, "min_characters_per_chunk must be at least 1")
              .max(MAX_CHUNK_SIZE)
              .default(12),
          })
          .prefault({}),
      })
      .prefault({}),
  })
  .superRefine((c, ctx) => {
    const backend = c.chunk_backend === "recursive" ? null : c.chunk_backend;
    if (backend && c.chunk_backend_configs[backend].chunk_overlap >= c.chunk_size) {
      ctx.addIssue({
        code: "custom",
        path: ["chunk_backend_configs", backend, "chunk_overlap"],
        message: `chunk_overlap (${c.chunk_backend_configs[backend].chunk_overlap}) must be smaller than chunk_size (${c.chunk_size})`,
      });
    }
    const delim = c.chunk_backend_configs.sentence.delim;
    if (typeof delim === "string") {
      try {
        if (parseDelim(delim).length === 0)
          ctx.addIssue({
            code: "custom",
            path: ["chunk_backend_configs", "sentence", "delim"],
            message: "give at least one delimiter",
          });
      } catch (err) {
        ctx.addIssue({
          code: "custom",
          path: ["chunk_backend_configs", "sentence", "delim"],
          message: (err as Error).message,
        });
      }
    }
  });

export type ChunkingSettings = z.infer<typeof chunkingSchema>;
export const DEFAULT_CHUNKING: ChunkingSettings = chunkingSchema.parse({});

/** The stored JSON → settings; anything unreadable (hand-edited rows) falls back to the defaults. */
export function readChunking(json: string | null | undefined): ChunkingSettings {
  try {
    const parsed = chunkingSchema.safeParse(JSON.parse(json ?? "{}"));
    return parsed.success ? parsed.data : DEFAULT_CHUNKING;
  } catch {
    return DEFAULT_CHUNKING;
  }
}

/** Settings → the text chunker's options (UltraRAG's defaults and rules applied by the chunker module). */
export function chunkOptions(c: ChunkingSettings): TextChunkOptions {
  const options = optionsFromUltrarag({
    chunk_backend: c.chunk_backend,
    tokenizer_or_token_counter: c.tokenizer_or_token_counter,
    chunk_size: c.chunk_size,
    chunk_backend_configs: {
      token: { chunk_overlap: c.chunk_backend_configs.token.chunk_overlap },
      sentence: { ...c.chunk_backend_configs.sentence },
      recursive: { min_characters_per_chunk: c.chunk_backend_configs.recursive.min_characters_per_chunk },
    },
  });
  return options;
}
