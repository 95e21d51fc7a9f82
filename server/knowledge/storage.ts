/**
 * Where a knowledge base lives: DATA_DIR/knowledge/<baseId>/{docs,text,incoming} on disk and one
 * logical index `kb_<baseId>` in the shared LanceDB directory (next to the snapshot indexes).
 *  - docs/<documentId><ext>  the uploaded file, byte for byte;
 *  - text/<documentId>.json  its extracted text and title (parsed once; re-chunking reads this);
 *  - incoming/               uploads being received (renamed into docs/ once accepted).
 */
import { rm } from "node:fs/promises";
import path from "node:path";
import type { Config } from "../config.ts";
import type { Logger } from "../logger.ts";
import { connect, dropIndex } from "../retrieval/store/index.ts";
import { searchStoreUri } from "../snapshots/storage.ts";

export { searchStoreUri };

export function baseDirs(dataDir: string, baseId: string) {
  const root = path.join(dataDir, "knowledge", baseId);
  return { root, docs: path.join(root, "docs"), text: path.join(root, "text"), incoming: path.join(root, "incoming") };
}

export function documentPaths(dataDir: string, baseId: string, documentId: string, name: string) {
  const dirs = baseDirs(dataDir, baseId);
  // Only a known, short extension from the user's file name reaches the disk; the rest is our id.
  const ext = path.extname(name).toLowerCase();
  const safeExt = /^\.[a-z0-9]{1,10}$/.test(ext) ? ext : "";
  return {
    original: path.join(dirs.docs, `${documentId}${safeExt}`),
    text: path.join(dirs.text, `${documentId}.json`),
  };
}

export function knowledgeIndexName(baseId: string): string {
  return `kb_${baseId}`;
}

/** Best effort, after the rows are gone: the base's files and its search index. */
export async function dropBaseStorage(
  config: Pick<Config, "dataDir" | "lancedbUri">,
  baseId: string,
  log: Logger,
): Promise<void> {
  // An indexing run may still be writing text files into the folder (ENOTEMPTY while rm walks it):
  // retry a little, then leave the rest to that run, which removes everything when it sees the base
  // is gone (job.ts, removedMeanwhile). Deleting the base must not fail on it.
  await rm(baseDirs(config.dataDir, baseId).root, {
    recursive: true,
    force: true,
    maxRetries: 5,
    retryDelay: 50,
  }).catch((err: unknown) => {
    log.warn({ err, baseId }, "could not remove all of a deleted knowledge base's files yet");
  });
  const store = await connect(searchStoreUri(config)).catch(() => null);
  if (!store) return;
  try {
    await dropIndex(store, knowledgeIndexName(baseId));
  } catch (err) {
    log.warn({ err, baseId }, "could not drop a deleted knowledge base's index");
  } finally {
    store.close();
  }
}
