/**
 * Building a knowledge base's search index from its documents' extracted text: chunk each text with
 * the base's settings, embed with the local embedder (fitted on this base's chunks: IDF and latent
 * vectors; embed/local.ts), and write
 * the whole index as a new generation (`replaceIndex`): readers keep the previous index until the new
 * one is complete, and a failure at any point leaves it untouched.
 *
 * Always a full rebuild: the embedder is fitted per base, so every added document shifts every
 * vector a little; at 3–4k chunks/s a base of 10k chunks takes a few seconds.
 */
import { chunkText } from "../retrieval/chunk/text.ts";
import { embedRows } from "../retrieval/embed/embed-rows.ts";
import { embedderForFullBuild } from "../retrieval/embed/for-build.ts";
import { LocalEmbedder } from "../retrieval/embed/local.ts";
import { searchFields } from "../retrieval/text/fields.ts";
import { replaceIndex, type ChunkRow, type Store, type WriteResult } from "../retrieval/store/index.ts";
import { ultraragContents } from "../retrieval/chunk/text.ts";
import { chunkOptions, type ChunkingSettings } from "./chunking.ts";
import { lineLocator } from "../lib/line-locator.ts";

/** A base bigger than this is refused with the fix (a larger chunk_size, or split the base). */
export const MAX_CHUNKS_PER_BASE = 500_000;

export interface SourceText {
  documentUid: string;
  name: string;
  kind: string;
  sha256: string;
  title: string | null;
  text: string;
}

export type ChunkDraft = Omit<ChunkRow, "vector">;

export class TooManyChunksError extends Error {
  /** Says how many chunks and what to change (server/errors.ts isUserFacing). */
  get userFacing(): boolean {
    return true;
  }
}

/** Chunk rows of one document. `file` is the document's uid (results map it back to the name). */
export function chunkDocument(doc: SourceText, settings: ChunkingSettings): ChunkDraft[] {
  const lineOf = lineLocator(doc.text);
  const title = doc.title ?? doc.name.replace(/\.[^.]+$/, "");
  return chunkText(doc.text, chunkOptions(settings))
    .filter((c) => c.text.trim())
    .map((c, i) => {
      const text = ultraragContents(c.text, title, settings.use_title);
      return {
        id: `${doc.documentUid}#${i}`,
        file: doc.documentUid,
        language: doc.kind,
        startLine: lineOf(c.startIndex),
        endLine: lineOf(Math.max(c.startIndex, c.endIndex - 1)),
        symbolPath: doc.title,
        symbolKinds: [],
        text,
        // The document's name and title are the names field of every chunk (a hit on "deploy" in
        // deploy-guide.md), identifiers split (parseConfigFile → parse config file).
        ...searchFields({ path: doc.name, symbolPath: doc.title, text }),
        contentHash: doc.sha256,
      };
    });
}

export interface BuildProgress {
  (fraction: number, message: string): void;
}

export interface BuildResult {
  chunksByDocument: Map<string, number>;
  rows: number;
  write: WriteResult;
}

/** Chunk → embed → write. `documents` are read lazily, one at a time, to bound memory to one text. */
export async function buildBaseIndex(
  store: Store,
  indexName: string,
  documents: { uid: string; load: () => Promise<SourceText> }[],
  settings: ChunkingSettings,
  onProgress: BuildProgress = () => undefined,
): Promise<BuildResult> {
  const drafts: ChunkDraft[] = [];
  const chunksByDocument = new Map<string, number>();
  for (const [i, d] of documents.entries()) {
    const chunks = chunkDocument(await d.load(), settings);
    chunksByDocument.set(d.uid, chunks.length);
    drafts.push(...chunks);
    if (drafts.length > MAX_CHUNKS_PER_BASE) {
      throw new TooManyChunksError(
        `These settings cut the documents into more than ${MAX_CHUNKS_PER_BASE.toLocaleString("en")} chunks. Use a larger chunk_size, or split the documents over several knowledge bases.`,
      );
    }
    onProgress((0.3 * (i + 1)) / documents.length, `Chunked ${i + 1} of ${documents.length} documents`);
    await yieldToEventLoop();
  }

  const embeddingText = (c: ChunkDraft) => c.text;
  const { embedder, state } = embedderForFullBuild(new LocalEmbedder(), drafts.map(embeddingText), 1);
  const rows = await embedRows(embedder, drafts, embeddingText, (done, total) =>
    onProgress(
      0.3 + (0.6 * done) / total,
      `Embedded ${done.toLocaleString("en")} of ${total.toLocaleString("en")} chunks`,
    ),
  );
  onProgress(0.92, "Writing the index");
  const write = await replaceIndex(store, indexName, {
    embedder: embedder.record(),
    embedderState: state,
    rows,
  });
  return { chunksByDocument, rows: rows.length, write };
}

function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
