/**
 * Build or update the chunk index of a project snapshot (or any set of files under a root).
 *
 * Incremental by content hash: a file whose hash matches the index keeps its rows untouched (not
 * re-read into chunks, not re-embedded); changed files are re-chunked and their rows replaced;
 * files gone from the list are removed. A fitted embedder's state (the local embedder's IDF, profile
 * and latent vectors; the hash embedder's IDF) stays the one fitted at the last full build, so old and
 * new vectors share a space — a full rebuild (first build, another embedder or version, a table of
 * the old full-text layout, `full`, or more than REFIT_SHARE of the files old and new changed, added
 * or gone, when the old fit no longer describes the corpus) refits it. All chunking and embedding happens before the store is touched,
 * and the store's writes are all-or-nothing (store/write.ts): a failure leaves the previous index
 * searchable.
 */
import { createHash } from "node:crypto";
import { chunkCode } from "./chunk/code.ts";
import { chunkText, optionsFromUltrarag, type TextChunkOptions } from "./chunk/text.ts";
import { embedderChanged, embedderForFullBuild, fittedEmbedder } from "./embed/for-build.ts";
import { embeddingText, embedRows } from "./embed/embed-rows.ts";
import { embedderForIndex } from "./embed/from-record.ts";
import { HashEmbedder } from "./embed/hash.ts";
import { LocalEmbedder } from "./embed/local.ts";
import type { Embedder } from "./embed/types.ts";
import { searchFields } from "./text/fields.ts";
import {
  type ChunkIndex,
  openChunkIndex,
  optimizeIndex,
  replaceIndex,
  updateIndex,
  type ChunkRow,
  type IndexPlan,
  type Store,
} from "./store/index.ts";
import { lineLocator } from "../lib/line-locator.ts";
import { readSources } from "./read-sources.ts";

/** Bumped when chunking or row contents change: every file then counts as changed. */
export const CHUNKING_VERSION = 2;
/** Prose is chunked as text, everything else along definitions (or line windows without a grammar). */
const PROSE = new Set(["markdown", "text"]);
const DEFAULT_TEXT_OPTIONS: TextChunkOptions = optionsFromUltrarag({
  chunk_backend: "recursive",
  tokenizer_or_token_counter: "word",
  chunk_size: 256,
});

export interface SnapshotFile {
  /** Relative to the root, `/`-separated: what results show. */
  path: string;
  language: string;
}

export interface IndexSnapshotOptions {
  /** Use the older hash embedder with these dimensions (a change forces a full rebuild); ignored
   * when `embedder` is given. */
  dims?: number;
  /** The configured embedder (createEmbedderFromSettings); default the local embedder. A different
   * embedder than the index's (family, dims, model, weights) forces a full rebuild. */
  embedder?: Embedder;
  /** Rebuild everything and refit the IDF, even if nothing changed. */
  full?: boolean;
  /** Files larger than this are skipped (generated bundles, data dumps). */
  maxFileBytes?: number;
  textOptions?: TextChunkOptions;
  annThreshold?: number;
}

export interface IndexSnapshotResult {
  full: boolean;
  /** Why an existing index was rebuilt in full rather than updated (an older embedder or full-text
   * layout), for the log and the CLI; absent when it was updated or built for the first time. */
  rebuilt?: string;
  files: number;
  /** Files (re-)chunked and embedded. */
  changedFiles: number;
  removedFiles: number;
  unchangedFiles: number;
  /** Files that could not be read or were too large, with the reason. */
  skipped: { path: string; reason: string }[];
  chunksEmbedded: number;
  rows: number;
  plan: IndexPlan;
  ms: number;
}

interface Prepared {
  file: SnapshotFile;
  hash: string;
  chunks: Omit<ChunkRow, "vector">[];
}

/** Share of the files (old and new) changed, added or removed above which an update refits the
 * hash IDF instead. */
export const REFIT_SHARE = 0.5;

export async function indexSnapshot(
  store: Store,
  name: string,
  root: string,
  files: SnapshotFile[],
  options: IndexSnapshotOptions = {},
): Promise<IndexSnapshotResult> {
  const started = performance.now();
  const maxBytes = options.maxFileBytes ?? 2 * 1024 * 1024;
  const existing = await openChunkIndex(store, name);
  const configured =
    options.embedder ?? (options.dims ? new HashEmbedder({ dims: options.dims }) : new LocalEmbedder());
  // A table of the old layout (one unstemmed full-text field) cannot take rows of the new one.
  const full = !!options.full || !existing || existing.layout !== 2 || embedderChanged(existing.embedder, configured);
  const rebuilt = existing ? rebuildReason(existing, configured) : undefined;
  const known = existing && !full ? await existing.fileHashes() : new Map<string, string>();
  const existingRecord = existing?.embedder;
  const existingState = existing?.embedderState;
  existing?.close();

  const skipped: IndexSnapshotResult["skipped"] = [];
  const changed: Prepared[] = [];
  const listed = new Set<string>();
  let unchangedFiles = 0;
  for await (const read of readSources(root, files, maxBytes)) {
    const { file } = read;
    listed.add(file.path);
    if ("skipped" in read) {
      skipped.push({ path: file.path, reason: read.skipped });
      continue;
    }
    const { source } = read;
    const hash = createHash("sha256")
      .update(`argus-chunks-v${CHUNKING_VERSION}\0${file.language}\0`)
      .update(source)
      .digest("hex");
    if (known.get(file.path) === hash) {
      unchangedFiles++;
      continue;
    }
    changed.push({
      file,
      hash,
      chunks: await chunkFile(file, source.toString("utf8"), hash, options.textOptions ?? DEFAULT_TEXT_OPTIONS),
    });
  }
  // Only files gone from the list are removed: a listed file that could not be read now keeps its old
  // rows (a transient read error must not look like a deletion).
  const removed = [...known.keys()].filter((f) => !listed.has(f));
  const replacedFiles = changed.filter((p) => known.has(p.file.path)).map((p) => p.file.path);

  // Most of the corpus is new: term weights fitted on the old one would misrank it. Start over (the
  // files are read again; only a fitted embedder has state to renew).
  const added = changed.length - replacedFiles.length;
  if (
    !full &&
    fittedEmbedder(configured) &&
    known.size &&
    (changed.length + removed.length) / (known.size + added) > REFIT_SHARE
  ) {
    return indexSnapshot(store, name, root, files, { ...options, full: true });
  }

  const pending = changed.flatMap((p) => p.chunks);
  const ann = options.annThreshold ? { annThreshold: options.annThreshold } : {};
  let write;
  let embedded: number;
  if (full) {
    const prose = pending.filter((c) => PROSE.has(c.language)).length;
    const { embedder, state } = embedderForFullBuild(
      configured,
      pending.map(embeddingText),
      pending.length ? prose / pending.length : 1,
    );
    const rows = await embedRows(embedder, pending, embeddingText);
    embedded = rows.length;
    write = await replaceIndex(store, name, { embedder: embedder.record(), embedderState: state, rows, ...ann });
  } else {
    // Local and hash: the index's own fitted state; others: the configured instance, checked against the record.
    const embedder: Embedder = embedderForIndex(
      existingRecord!,
      existingState,
      fittedEmbedder(configured) ? undefined : configured,
    );
    const rows = await embedRows(embedder, pending, embeddingText);
    embedded = rows.length;
    write = await updateIndex(store, name, {
      embedder: embedder.record(),
      removeFiles: [...removed, ...replacedFiles],
      rows,
      ...ann,
    });
    // Many small appends slow every query (fragments, rows outside the ANN index): compact and
    // re-index now, while this update is the one paying for it.
    if (write.maintenanceDue) await optimizeIndex(store, name);
  }
  return {
    full,
    ...(rebuilt ? { rebuilt } : {}),
    files: files.length,
    changedFiles: changed.length,
    removedFiles: removed.length,
    unchangedFiles,
    skipped,
    chunksEmbedded: embedded,
    rows: write.rows,
    plan: write.plan,
    ms: Math.round(performance.now() - started),
  };
}

/** The note for an index that cannot be updated in place with the configured embedder. */
function rebuildReason(existing: Pick<ChunkIndex, "layout" | "embedder">, configured: Embedder): string | undefined {
  if (existing.layout !== 2)
    return `This index was built before stemmed full text (and with the ${existing.embedder.name} embedder); it was rebuilt in full with the ${configured.name} embedder.`;
  if (embedderChanged(existing.embedder, configured))
    return `This index was built with the ${existing.embedder.name} embedder (or another version of it); it was rebuilt in full with the ${configured.name} embedder.`;
  return undefined;
}

async function chunkFile(
  file: SnapshotFile,
  source: string,
  contentHash: string,
  textOptions: TextChunkOptions,
): Promise<Omit<ChunkRow, "vector">[]> {
  const row = (
    i: number,
    {
      symbolNames,
      ...c
    }: {
      startLine: number;
      endLine: number;
      symbolPath: string | null;
      symbolKinds: string[];
      symbolNames: string[];
      text: string;
    },
  ) => ({
    id: `${file.path}#${i}:${c.startLine}-${c.endLine}`,
    file: file.path,
    language: file.language,
    ...c,
    // The path and the names defined are a field of their own (a hit on `config` in `config/loader.ts`).
    ...searchFields({ path: file.path, symbolPath: c.symbolPath, symbolNames, text: c.text, language: file.language }),
    contentHash,
  });
  if (PROSE.has(file.language)) {
    const lineOf = lineLocator(source);
    return chunkText(source, textOptions)
      .filter((c) => c.text.trim())
      .map((c, i) =>
        row(i, {
          startLine: lineOf(c.startIndex),
          endLine: lineOf(Math.max(c.startIndex, c.endIndex - 1)),
          symbolPath: null,
          symbolKinds: [],
          symbolNames: [],
          text: c.text,
        }),
      );
  }
  const chunks = await chunkCode({ path: file.path, language: file.language, source });
  return chunks.map((c, i) =>
    row(i, {
      startLine: c.startLine,
      endLine: c.endLine,
      symbolPath: c.symbolPath,
      symbolKinds: [...new Set(c.symbols.map((s) => s.kind))],
      symbolNames: c.symbols.map((s) => s.path),
      text: c.text,
    }),
  );
}
