/** Streams one file into the staging tree with a byte cap, refusing to overwrite or follow links. */
import { mkdir, open } from "node:fs/promises";
import path from "node:path";
import { ingestError, quote } from "./errors.ts";

export type Content = AsyncIterable<Uint8Array> | Uint8Array;

export interface WriteOptions {
  /** Bytes this file may have; exceeding it throws tooLarge() and the partial file is left for cleanup. */
  maxBytes: number;
  tooLarge: () => Error;
  /** Called with each chunk's size (progress and running totals; may throw to stop the write). */
  onBytes?: (n: number) => void;
  /** Called with each chunk (e.g. a CRC check). */
  onChunk?: (chunk: Uint8Array) => void;
}

/**
 * Writes content to abs (a path already checked to be inside the staging tree). Parents are created;
 * "wx" (O_CREAT|O_EXCL) means an existing file — or a symlink planted there — is never written through.
 * Files get 0644: execute bits from an archive or upload are not kept. `source` may be a function
 * that opens the stream, called once the target file is open.
 */
export async function writeCapped(
  abs: string,
  rel: string,
  source: Content | (() => Promise<Content> | Content),
  opts: WriteOptions,
): Promise<number> {
  try {
    await mkdir(path.dirname(abs), { recursive: true });
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "EEXIST" || code === "ENOTDIR") {
      throw ingestError(
        "path_conflict",
        `The upload has both a file and a folder on the path of ${quote(rel)}; rename one of them.`,
      );
    }
    throw err;
  }
  let fh;
  try {
    fh = await open(abs, "wx", 0o644);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "EEXIST" || code === "EISDIR") {
      throw ingestError(
        "path_conflict",
        `The upload contains ${quote(rel)} twice (or as both a file and a folder); remove the duplicate.`,
      );
    }
    if (code === "ENAMETOOLONG")
      throw ingestError("unsafe_path", `The path ${quote(rel)} is too long for the filesystem.`);
    throw err;
  }
  let written = 0;
  try {
    // A factory opens its stream only now, once the target exists: nothing is read for a refused write.
    const content = typeof source === "function" ? await source() : source;
    const chunks: AsyncIterable<Uint8Array> | Uint8Array[] = content instanceof Uint8Array ? [content] : content;
    for await (const chunk of chunks) {
      written += chunk.length;
      if (written > opts.maxBytes) throw opts.tooLarge();
      opts.onChunk?.(chunk);
      opts.onBytes?.(chunk.length);
      await fh.write(chunk);
    }
  } finally {
    await fh.close();
  }
  return written;
}

/** Consumes and discards content (an ignored upload whose stream must still be read to the end). */
export async function drain(content: Content): Promise<void> {
  if (content instanceof Uint8Array) return;
  for await (const _ of content) {
    // discard
  }
}
