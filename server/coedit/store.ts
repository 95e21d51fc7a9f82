/**
 * Where shared drafts live (tables coedit_doc, coedit_update; docs/coedit.md): each Yjs update is
 * inserted before anyone else is sent it, so the database is the truth whatever node dies; every
 * COMPACT_EVERY updates they are folded into the doc's snapshot and deleted. Compaction is guarded by
 * the snapshot's `upTo` (the last update folded in): two nodes compacting at once cannot fold an older
 * state over a newer one, since only the one that read the current `upTo` writes.
 */
import * as Y from "yjs";
import { isUniqueViolation, type Db } from "../db/client.ts";

export interface StoredDoc {
  generation: number;
  snapshot: Uint8Array;
  /** Updates after the snapshot, oldest first (only this generation's). */
  updates: { id: number; data: Uint8Array }[];
  upTo: number;
  editors: string[];
  /** Bytes of the snapshot and the updates after it: what the doc costs in the database. */
  bytes: number;
}

const parseEditors = (json: string): string[] => {
  try {
    const v = JSON.parse(json) as unknown;
    return Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : [];
  } catch {
    return [];
  }
};

export function createDocStore(db: Db) {
  async function updatesAfter(room: string, generation: number, afterId: number) {
    const rows = await db.coeditUpdate.findMany({
      where: { room, generation, id: { gt: afterId } },
      orderBy: { id: "asc" },
      select: { id: true, data: true },
    });
    return rows.map((r) => ({ id: r.id, data: new Uint8Array(r.data) }));
  }

  return {
    async load(room: string): Promise<StoredDoc | null> {
      const row = await db.coeditDoc.findUnique({ where: { room } });
      if (!row) return null;
      const updates = await updatesAfter(room, row.generation, row.upTo);
      const snapshot = new Uint8Array(row.snapshot);
      return {
        generation: row.generation,
        snapshot,
        updates,
        upTo: row.upTo,
        editors: parseEditors(row.editors),
        bytes: snapshot.byteLength + updates.reduce((n, u) => n + u.data.byteLength, 0),
      };
    },

    /** The updates another node stored after `afterId` (a node catching up before it serves a doc). */
    updatesAfter,

    /** Creates the doc with its first content; false when another node created it first. */
    async create(room: string, snapshot: Uint8Array): Promise<boolean> {
      try {
        await db.coeditDoc.create({ data: { room, snapshot: Uint8Array.from(snapshot) } });
        return true;
      } catch (err) {
        if (isUniqueViolation(err)) return false;
        throw err;
      }
    },

    /** Stores several updates in one insert (in this order). */
    async appendMany(
      room: string,
      generation: number,
      items: readonly { update: Uint8Array; userId: string | null }[],
    ): Promise<void> {
      await db.coeditUpdate.createMany({
        data: items.map((i) => ({ room, generation, data: Uint8Array.from(i.update), userId: i.userId })),
      });
    },

    /** Stores one update; resolves with its id once it is in the database. */
    async append(room: string, generation: number, data: Uint8Array, userId: string | null): Promise<number> {
      const row = await db.coeditUpdate.create({
        data: { room, generation, data: Uint8Array.from(data), userId },
        select: { id: true },
      });
      return row.id;
    },

    /**
     * Folds the updates after the snapshot (up to the newest now) into it and deletes them. Returns the
     * new snapshot's size, or null when another node compacted in between (nothing written).
     */
    async compact(room: string): Promise<{ bytes: number; upTo: number } | null> {
      const row = await db.coeditDoc.findUnique({ where: { room } });
      if (!row) return null;
      const updates = await updatesAfter(room, row.generation, row.upTo);
      if (updates.length === 0) return { bytes: row.snapshot.byteLength, upTo: row.upTo };
      const upTo = updates[updates.length - 1]!.id;
      // Through a doc rather than mergeUpdates: deleted text is garbage-collected, so the snapshot is
      // about the size of the text, not of its history.
      const doc = new Y.Doc();
      Y.applyUpdate(doc, new Uint8Array(row.snapshot));
      for (const u of updates) Y.applyUpdate(doc, u.data);
      const snapshot = Y.encodeStateAsUpdate(doc);
      doc.destroy();
      return db.$transaction(async (tx) => {
        const { count } = await tx.coeditDoc.updateMany({
          where: { room, upTo: row.upTo, generation: row.generation },
          data: { snapshot: Uint8Array.from(snapshot), upTo },
        });
        if (count === 0) return null;
        await tx.coeditUpdate.deleteMany({ where: { room, id: { lte: upTo } } });
        return { bytes: snapshot.byteLength, upTo };
      });
    },

    /** Who edited since the last version (written when someone edits for the first time since). */
    async setEditors(room: string, editors: readonly string[]): Promise<void> {
      await db.coeditDoc.updateMany({ where: { room }, data: { editors: JSON.stringify(editors) } });
    },

    /** Starts the draft again from `snapshot` (a full doc that was saved): the next generation. */
    async reset(room: string, generation: number, snapshot: Uint8Array): Promise<void> {
      await db.$transaction([
        db.coeditUpdate.deleteMany({ where: { room } }),
        db.coeditDoc.updateMany({
          where: { room },
          data: { snapshot: Uint8Array.from(snapshot), generation, upTo: 0, editors: "[]" },
        }),
      ]);
    },

    /** Forgets a doc (its pipeline or prompt was deleted). */
    async remove(room: string): Promise<void> {
      await db.$transaction([
        db.coeditUpdate.deleteMany({ where: { room } }),
        db.coeditDoc.deleteMany({ where: { room } }),
      ]);
    },
  };
}

export type DocStore = ReturnType<typeof createDocStore>;
