/**
 * A document's text for indexing (job.ts): parsed once and kept beside the document as JSON (so a
 * re-chunk never parses again), then read back for each build.
 */
import { mkdir, readFile, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { z } from "zod";
import type { KnowledgeBase, KnowledgeDocument } from "../db/client.ts";
import { publicError } from "../errors-public.ts";
import type { SourceText } from "./build.ts";
import { documentEvent, type IndexingDeps } from "./index-events.ts";
import { parseDocument, ParseRefusal, statusForRefusal } from "./parse/index.ts";
import { documentPaths } from "./storage.ts";

const storedTextSchema = z.object({ kind: z.string(), title: z.string().nullable(), text: z.string() });

/** Parses a document once; returns false (and records why) when it yields no text. */
export async function ensureText(d: IndexingDeps, base: KnowledgeBase, doc: KnowledgeDocument): Promise<boolean> {
  const { db, config, log } = d;
  const paths = documentPaths(config.dataDir, base.id, doc.id, doc.name);
  if (
    await readFile(paths.text).then(
      () => true,
      () => false,
    )
  )
    return true;
  let status: "skipped" | "failed";
  let message: string;
  try {
    const bytes = await readFile(paths.original);
    const parsed = await parseDocument(doc.name, bytes);
    await mkdir(path.dirname(paths.text), { recursive: true });
    await writeFile(paths.text, JSON.stringify({ kind: parsed.kind, title: parsed.title, text: parsed.text }));
    return true;
  } catch (err) {
    if (err instanceof ParseRefusal) {
      status = statusForRefusal(err.reason);
      message = err.message;
    } else if ((err as NodeJS.ErrnoException).code === "ENOENT") {
      status = "failed";
      message = `${doc.name}: the uploaded file is missing on the server. Delete it and upload it again.`;
    } else {
      status = "failed";
      message = publicError(err, { doing: `reading ${doc.name}`, log, context: { document: doc.uid } }).message;
    }
  }
  // Nothing more can be done with the file: keep the record (with the reason), not the bytes.
  await rm(paths.original, { force: true });
  await db.knowledgeDocument.updateMany({ where: { id: doc.id }, data: { status, message, chunkCount: 0 } });
  await documentEvent(d, base, { ...doc, status, message, chunkCount: 0 });
  return false;
}

export async function loadText(
  { config }: IndexingDeps,
  base: KnowledgeBase,
  doc: KnowledgeDocument,
): Promise<SourceText> {
  const raw = await readFile(documentPaths(config.dataDir, base.id, doc.id, doc.name).text, "utf8").catch(
    (err: NodeJS.ErrnoException) => {
      // Deleted while this run was going: it contributes nothing (the delete scheduled another run).
      if (err.code === "ENOENT") return null;
      throw err;
    },
  );
  if (raw === null)
    return { documentUid: doc.uid, name: doc.name, kind: "text", sha256: doc.sha256, title: null, text: "" };
  const stored = storedTextSchema.parse(JSON.parse(raw));
  return {
    documentUid: doc.uid,
    name: doc.name,
    kind: stored.kind,
    sha256: doc.sha256,
    title: stored.title,
    text: stored.text,
  };
}
