/**
 * A knowledge base's documents: listed by viewers; recorded from an upload (unsupported types
 * skipped, duplicates and files over the base's limit rejected) and deleted by members, each change
 * that touches the index scheduling a run of it.
 */
import { randomUUID } from "node:crypto";
import { mkdir, rename, rm } from "node:fs/promises";
import path from "node:path";
import { requireRole, type Actor } from "../auth/access.ts";
import { isUniqueViolation, type KnowledgeBase, type KnowledgeDocument } from "../db/client.ts";
import { notFound } from "../errors.ts";
import { kindOf, MIME, unsupportedMessage } from "./parse/index.ts";
import { loadBaseFor, scheduleIndexing, type KnowledgeDeps } from "./rows.ts";
import { documentPaths } from "./storage.ts";

export const MAX_DOCUMENTS_PER_BASE = 10_000;

export type DocumentView = Omit<KnowledgeDocument, "id" | "knowledgeBaseId">;

/** A file received by the upload route, already on disk under the base's incoming/ folder. */
export interface ReceivedFile {
  name: string;
  path: string;
  bytes: number;
  sha256: string;
}

export interface UploadOutcome {
  documents: DocumentView[];
  /** Files not added, each with the reason (duplicates, too large, over the base's limit). */
  rejected: { name: string; reason: "duplicate" | "too_large" | "limit"; message: string }[];
}

const documentView = ({ id: _id, knowledgeBaseId: _b, ...rest }: KnowledgeDocument): DocumentView => rest;

export async function listDocuments({ db }: KnowledgeDeps, actor: Actor, uid: string): Promise<DocumentView[]> {
  const base = await loadBaseFor(db, actor, uid, "viewer");
  const rows = await db.knowledgeDocument.findMany({
    where: { knowledgeBaseId: base.id },
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    take: MAX_DOCUMENTS_PER_BASE,
  });
  return rows.map(documentView);
}

export async function removeDocument(d: KnowledgeDeps, actor: Actor, documentUid: string): Promise<void> {
  const { db, config } = d;
  const doc = await db.knowledgeDocument.findUnique({
    where: { uid: documentUid },
    include: { knowledgeBase: true },
  });
  if (!doc) throw notFound(`No document with id ${documentUid}. It may have been deleted already.`);
  await requireRole(db, actor, doc.knowledgeBase.workspaceId, "member");
  await db.knowledgeDocument.delete({ where: { id: doc.id } });
  const paths = documentPaths(config.dataDir, doc.knowledgeBaseId, doc.id, doc.name);
  await rm(paths.original, { force: true });
  await rm(paths.text, { force: true });
  // Only what was indexed (or about to be) needs the index rebuilt; searches skip the deleted
  // document's chunks meanwhile.
  if (doc.status === "ready" || doc.status === "pending")
    await scheduleIndexing(d, doc.knowledgeBase, "Removing a document from the index");
}

/**
 * Records received files: unsupported types as skipped documents (the reason shown, the bytes
 * dropped), duplicates (same bytes already in this base) rejected, the rest kept and queued for
 * indexing. Takes ownership of the received files (moved or removed).
 */
export async function addDocuments(
  d: KnowledgeDeps,
  base: KnowledgeBase,
  files: ReceivedFile[],
  tooLarge: { name: string; message: string }[] = [],
): Promise<UploadOutcome> {
  const { db, config } = d;
  const outcome: UploadOutcome = {
    documents: [],
    rejected: tooLarge.map((t) => ({ ...t, reason: "too_large" as const })),
  };
  let count = await db.knowledgeDocument.count({ where: { knowledgeBaseId: base.id } });
  let queued = false;
  for (const file of files) {
    try {
      if (count >= MAX_DOCUMENTS_PER_BASE) {
        outcome.rejected.push({
          name: file.name,
          reason: "limit",
          message: `${file.name}: this knowledge base already holds ${MAX_DOCUMENTS_PER_BASE.toLocaleString("en")} documents, the limit. Create another base for more.`,
        });
        continue;
      }
      const existing = await db.knowledgeDocument.findUnique({
        where: { knowledgeBaseId_sha256: { knowledgeBaseId: base.id, sha256: file.sha256 } },
      });
      if (existing) {
        outcome.rejected.push({
          name: file.name,
          reason: "duplicate",
          message: duplicateMessage(file.name, existing),
        });
        continue;
      }
      const kind = kindOf(file.name);
      let doc: KnowledgeDocument;
      try {
        doc = await db.knowledgeDocument.create({
          data: {
            uid: randomUUID(),
            knowledgeBaseId: base.id,
            name: file.name,
            mime: kind ? MIME[kind] : "application/octet-stream",
            bytes: file.bytes,
            sha256: file.sha256,
            status: kind ? "pending" : "skipped",
            message: kind ? null : unsupportedMessage(file.name),
          },
        });
      } catch (err) {
        // The same bytes arrived in a concurrent upload a moment ago.
        if (!isUniqueViolation(err)) throw err;
        const twin = await db.knowledgeDocument.findUnique({
          where: { knowledgeBaseId_sha256: { knowledgeBaseId: base.id, sha256: file.sha256 } },
        });
        outcome.rejected.push({ name: file.name, reason: "duplicate", message: duplicateMessage(file.name, twin) });
        continue;
      }
      count++;
      if (kind) {
        const target = documentPaths(config.dataDir, base.id, doc.id, doc.name).original;
        await mkdir(path.dirname(target), { recursive: true });
        await rename(file.path, target).catch(async (err: unknown) => {
          await db.knowledgeDocument.delete({ where: { id: doc.id } });
          throw err;
        });
        queued = true;
      }
      outcome.documents.push(documentView(doc));
    } finally {
      await rm(file.path, { force: true });
    }
  }
  if (queued) await scheduleIndexing(d, base, "Waiting to read the new documents");
  return outcome;
}

function duplicateMessage(name: string, existing: { name: string; status: string } | null): string {
  if (!existing) return `${name} is already in this base.`;
  const as = existing.name === name ? "" : ` (as “${existing.name}”)`;
  const state =
    existing.status === "skipped" || existing.status === "failed"
      ? `, marked ${existing.status}; delete it first to upload it again`
      : "";
  return `${name} is already in this base${as}${state}.`;
}
