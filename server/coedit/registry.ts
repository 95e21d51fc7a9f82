/**
 * The shared drafts a node serves (docs/coedit.md): one Yjs doc per room in memory while someone has
 * it open, loaded from the store (snapshot + updates) and caught up from it on every open, so a node
 * that joins late or restarts serves what the database holds. Each edit is checked (messages.ts),
 * applied, stored, and only then passed to the room and to the other nodes; a doc's edits go through
 * one queue, so they are stored in the order they were applied. Every COMPACT_EVERY stored updates the
 * doc is compacted. Awareness (cursors) is kept per doc too: a newcomer gets everyone's, and a socket
 * that leaves takes its cursors with it.
 */
import { Awareness, applyAwarenessUpdate, encodeAwarenessUpdate, removeAwarenessStates } from "y-protocols/awareness";
import * as syncProtocol from "y-protocols/sync";
import * as Y from "yjs";
import type { Actor } from "../auth/access.ts";
import { conflict, forbidden, invalid } from "../errors.ts";
import type { Logger } from "../logger.ts";
import { DOC_MAX_BYTES, DOC_ROOTS, type DocNotice, type DocOpened, encodeBinary } from "../shared/coedit.ts";
import { parseRoom, type ParsedRoom } from "../shared/rooms.ts";
import { encodeAwareness, readAwareness, readStep1, readUpdate, syncMessage } from "./messages.ts";
import type { DocStore } from "./store.ts";

/** Stored updates after which a doc is folded into its snapshot. */
export const COMPACT_EVERY = 100;

export type DocKind = "pipeline" | "prompt";

/** How the registry reaches sockets and the other nodes (the socket adapter implements it). */
export interface DocOutbox {
  update(room: string, generation: number, update: Uint8Array, exceptSocket: string | null): void;
  awareness(room: string, update: Uint8Array, exceptSocket: string | null): void;
  notice(room: string, notice: DocNotice): void;
  /** To the other nodes' registries (applyRelayed). */
  relay(room: string, message: Relayed): void;
}
export type Relayed = { kind: "update"; generation: number; update: string } | { kind: "drop" };

/** What a doc starts from and where a saved version goes (drafts.ts). */
export interface DraftSource {
  /** Writes the thing's saved content into a fresh doc; throws not_found when it is gone. */
  initial(room: ParsedRoom, doc: Y.Doc): Promise<void>;
  /** Nobody may edit it (a built-in prompt). */
  readOnly(room: ParsedRoom): Promise<boolean>;
  save(
    actor: Actor,
    room: ParsedRoom,
    doc: Y.Doc,
    editedBy: string[],
    message?: string,
  ): Promise<{ version: number | null }>;
}

interface LiveDoc {
  room: ParsedRoom & { kind: DocKind };
  doc: Y.Doc;
  awareness: Awareness;
  generation: number;
  /** The highest stored update id read from the store (catch-up reads after it). */
  seen: number;
  bytes: number;
  sinceCompact: number;
  editors: Set<string>;
  readOnly: boolean;
  full: boolean;
  sockets: Set<string>;
  /** Awareness client id → the socket that announced it. */
  owners: Map<number, string>;
  queue: Promise<unknown>;
  /** Edits applied and waiting for their write (writeBatch). */
  batch: Batch | null;
}

interface Batch {
  items: Pending[];
  written: Promise<void>;
}

/** What the module-level steps need of the registry. */
interface Inner {
  unload: (d: LiveDoc) => void;
  queued: <T>(d: LiveDoc, work: () => Promise<T>) => Promise<T>;
}

const REMOTE = Symbol("remote");

interface Ctx {
  store: DocStore;
  source: DraftSource;
  outbox: DocOutbox;
  log: Logger;
  compactEvery: number;
  maxBytes: number;
}

async function loadDoc(ctx: Ctx, room: LiveDoc["room"]): Promise<LiveDoc> {
  const { store, source, maxBytes } = ctx;
  let stored = await store.load(room.name);
  if (!stored) {
    const first = new Y.Doc();
    await source.initial(room, first);
    // Another node may have created it meanwhile: then its content is the one (ours is dropped).
    await store.create(room.name, Y.encodeStateAsUpdate(first));
    first.destroy();
    stored = await store.load(room.name);
    if (!stored) throw conflict("The draft was deleted while it opened; open it again.");
  }
  const doc = new Y.Doc();
  Y.applyUpdate(doc, stored.snapshot);
  for (const u of stored.updates) Y.applyUpdate(doc, u.data);
  const awareness = new Awareness(doc);
  awareness.setLocalState(null);
  return {
    room,
    doc,
    awareness,
    generation: stored.generation,
    seen: stored.updates.at(-1)?.id ?? stored.upTo,
    bytes: stored.bytes,
    sinceCompact: stored.updates.length,
    editors: new Set(stored.editors),
    readOnly: await source.readOnly(room),
    full: stored.bytes > maxBytes,
    sockets: new Set(),
    owners: new Map(),
    queue: Promise.resolve(),
    batch: null,
  };
}

async function compact(ctx: Ctx, d: LiveDoc): Promise<void> {
  const done = await ctx.store.compact(d.room.name);
  if (!done) return;
  d.bytes = done.bytes;
  d.sinceCompact = 0;
  d.seen = Math.max(d.seen, done.upTo);
}

interface Pending {
  update: Uint8Array;
  socketId: string;
  userId: string;
}

/**
 * Applies an edit to the doc at once, then stores it with the edits that arrive while the previous
 * write is in flight — one insert for all of them (a group commit: a busy doc costs one write per
 * round trip, not per keystroke) — and passes each on only once it is stored. Resolves when stored.
 */
function accept(ctx: Ctx & Inner, d: LiveDoc, item: Pending): Promise<void> {
  try {
    Y.applyUpdate(d.doc, item.update, REMOTE);
  } catch (err) {
    // Part of it may be in: the doc is read again from the store at the next open.
    ctx.unload(d);
    ctx.log.warn({ err, room: d.room.name }, "a Yjs update that decoded could not be applied");
    throw invalid("The edit could not be applied; reopen the document.");
  }
  if (!d.batch) {
    const batch: Batch = { items: [], written: Promise.resolve() };
    d.batch = batch;
    batch.written = ctx.queued(d, () => writeBatch(ctx, d, batch));
  }
  d.batch.items.push(item);
  return d.batch.written;
}

async function writeBatch(ctx: Ctx & Inner, d: LiveDoc, batch: Batch): Promise<void> {
  const { store, outbox, log } = ctx;
  if (d.batch === batch) d.batch = null;
  try {
    await store.appendMany(d.room.name, d.generation, batch.items);
  } catch (err) {
    ctx.unload(d); // not stored: nobody may see it, and the next open reads the truth again
    throw err;
  }
  let newEditor = false;
  for (const item of batch.items) {
    d.bytes += item.update.byteLength;
    d.sinceCompact++;
    outbox.update(d.room.name, d.generation, item.update, item.socketId);
    outbox.relay(d.room.name, { kind: "update", generation: d.generation, update: encodeBinary(item.update) });
    if (!d.editors.has(item.userId)) newEditor = !!d.editors.add(item.userId);
  }
  if (newEditor) await store.setEditors(d.room.name, [...d.editors]);
  if (d.sinceCompact >= ctx.compactEvery)
    await compact(ctx, d).catch((err: unknown) => log.warn({ err, room: d.room.name }, "compacting a draft failed"));
}

/** Starts a full draft again from its content (just saved): the next generation, its history dropped. */
async function restart(ctx: Ctx, d: LiveDoc): Promise<void> {
  const fresh = new Y.Doc();
  fresh.transact(() => {
    for (const root of DOC_ROOTS[d.room.kind]) {
      const from = d.doc.share.get(root);
      if (from instanceof Y.Text) fresh.getText(root).insert(0, from.toString());
      if (from instanceof Y.Map) for (const [k, v] of from.entries()) fresh.getMap(root).set(k, v);
    }
  });
  const snapshot = Y.encodeStateAsUpdate(fresh);
  await ctx.store.reset(d.room.name, d.generation + 1, snapshot);
  d.doc.destroy();
  Object.assign(d, { doc: fresh, generation: d.generation + 1, seen: 0, bytes: snapshot.byteLength });
  Object.assign(d, { sinceCompact: 0, full: false, sockets: new Set<string>() });
  ctx.outbox.relay(d.room.name, { kind: "drop" });
  ctx.outbox.notice(d.room.name, { kind: "reset", generation: d.generation });
}

export function createDocRegistry(deps: {
  store: DocStore;
  source: DraftSource;
  outbox: DocOutbox;
  log: Logger;
  compactEvery?: number;
  maxBytes?: number;
}) {
  const ctx: Ctx = { compactEvery: COMPACT_EVERY, maxBytes: DOC_MAX_BYTES, ...deps };
  const { store, source, outbox, log, maxBytes } = ctx;
  const live = new Map<string, LiveDoc>();
  const loading = new Map<string, Promise<LiveDoc>>();

  function docRoom(name: string): LiveDoc["room"] {
    const room = parseRoom(name);
    if (!room || (room.kind !== "pipeline" && room.kind !== "prompt"))
      throw invalid("Only a pipeline's or a prompt's room has a shared draft.");
    return room as LiveDoc["room"];
  }

  /** Runs `work` after the doc's earlier work (edits, saves, compaction) finished. */
  function queued<T>(d: LiveDoc, work: () => Promise<T>): Promise<T> {
    const next = d.queue.then(work, work);
    d.queue = next.catch(() => undefined);
    return next;
  }

  async function get(room: LiveDoc["room"]): Promise<LiveDoc> {
    const have = live.get(room.name);
    if (have) return have;
    let pending = loading.get(room.name);
    if (!pending) {
      pending = loadDoc(ctx, room).then((d) => {
        live.set(room.name, d);
        return d;
      });
      loading.set(room.name, pending);
      void pending.catch(() => undefined).finally(() => loading.delete(room.name));
    }
    return pending;
  }

  /** Applies what other nodes stored since this node last read the store. */
  async function catchUp(d: LiveDoc): Promise<void> {
    const updates = await store.updatesAfter(d.room.name, d.generation, d.seen);
    for (const u of updates) {
      Y.applyUpdate(d.doc, u.data, REMOTE);
      d.seen = Math.max(d.seen, u.id);
    }
  }

  function unload(d: LiveDoc): void {
    if (live.get(d.room.name) !== d) return;
    live.delete(d.room.name);
    d.awareness.destroy();
    d.doc.destroy();
  }

  function opened(d: LiveDoc | undefined, socketId: string): LiveDoc {
    if (!d || !d.sockets.has(socketId)) throw conflict("Open the document first (doc.open).");
    return d;
  }

  return {
    /** Opens the room's draft for a socket: what it lacks, the server's state vector, the cursors. */
    async open(socketId: string, roomName: string, step1: string, role: string): Promise<DocOpened> {
      const vector = readStep1(step1);
      const d = await get(docRoom(roomName));
      await queued(d, () => catchUp(d));
      d.sockets.add(socketId);
      const clients = [...d.awareness.getStates().keys()];
      return {
        sync: encodeBinary(syncMessage((e) => syncProtocol.writeSyncStep2(e, d.doc, vector))),
        serverSync: encodeBinary(syncMessage((e) => syncProtocol.writeSyncStep1(e, d.doc))),
        awareness: clients.length ? encodeBinary(encodeAwarenessUpdate(d.awareness, clients)) : null,
        generation: d.generation,
        readOnly: role === "viewer" || d.readOnly,
        full: d.full,
      };
    },

    /** An edit from a socket that opened the doc: checked, applied, stored, then passed on. */
    async update(socketId: string, actor: NonNullable<Actor>, roomName: string, generation: number, sync: string) {
      const d = opened(live.get(docRoom(roomName).name), socketId);
      if (d.readOnly) throw forbidden("This prompt is built in and read-only: duplicate it to edit a copy.");
      if (generation !== d.generation)
        throw conflict("The draft was started again from a saved version; reopen it to continue.");
      const update = readUpdate(sync, DOC_ROOTS[d.room.kind]);
      if (d.full || d.bytes + update.byteLength > maxBytes) {
        const message = "This draft is full: save a version to continue editing.";
        if (!d.full) outbox.notice(d.room.name, { kind: "full", message });
        d.full = true;
        throw conflict(message);
      }
      await accept({ ...ctx, unload, queued }, d, { update, socketId, userId: actor.userId });
    },

    /** The sender's cursors: checked, stamped with their name, passed to the room's other sockets. */
    awareness(socketId: string, actor: NonNullable<Actor>, roomName: string, update: string): void {
      const d = opened(live.get(docRoom(roomName).name), socketId);
      const entries = readAwareness(update, { userId: actor.userId, name: actor.name ?? "Someone" });
      for (const e of entries) {
        const owner = d.owners.get(e.clientId);
        if (owner !== undefined && owner !== socketId) throw forbidden("That cursor is someone else's.");
      }
      for (const e of entries) {
        if (e.state === null) d.owners.delete(e.clientId);
        else d.owners.set(e.clientId, socketId);
      }
      const bytes = encodeAwareness(entries);
      applyAwarenessUpdate(d.awareness, bytes, socketId);
      outbox.awareness(d.room.name, bytes, socketId);
    },

    /** A socket left the room (or disconnected: every room): its cursors go; a doc nobody has is dropped. */
    close(socketId: string, roomName?: string): void {
      for (const d of roomName ? [live.get(roomName)].filter((x) => !!x) : [...live.values()]) {
        if (!d.sockets.delete(socketId)) continue;
        const mine = [...d.owners].filter(([, s]) => s === socketId).map(([id]) => id);
        if (mine.length) {
          for (const id of mine) d.owners.delete(id);
          removeAwarenessStates(d.awareness, mine, "close");
          outbox.awareness(d.room.name, encodeAwarenessUpdate(d.awareness, mine), null);
        }
        if (d.sockets.size === 0) void queued(d, async () => d.sockets.size === 0 && unload(d));
      }
    },

    /** Saves the merged draft as a version; a full draft then starts again from it (next generation). */
    async save(actor: NonNullable<Actor>, roomName: string, message?: string): Promise<{ version: number | null }> {
      const d = await get(docRoom(roomName));
      return queued(d, async () => {
        await catchUp(d);
        const saved = await source.save(actor, d.room, d.doc, [...d.editors], message);
        d.editors.clear();
        await store.setEditors(d.room.name, []);
        if (d.full) await restart(ctx, d);
        outbox.notice(d.room.name, { kind: "saved", version: saved.version, by: actor.name ?? "Someone" });
        return saved;
      });
    },

    /** What another node stored and relayed (its sockets' edits), for this node's copy. */
    applyRelayed(roomName: string, message: Relayed): void {
      const d = live.get(roomName);
      if (!d) return;
      if (message.kind === "drop") return unload(d);
      if (message.generation !== d.generation) return;
      try {
        const update = new Uint8Array(Buffer.from(message.update, "base64"));
        Y.applyUpdate(d.doc, update, REMOTE);
        d.bytes += update.byteLength;
      } catch (err) {
        log.warn({ err, room: roomName }, "a relayed draft update could not be applied; reading the store");
        unload(d);
      }
    },

    /** The pipeline or prompt was deleted: its editors are told, the draft is forgotten. */
    async end(roomName: string, message: string): Promise<void> {
      outbox.notice(roomName, { kind: "ended", message });
      const d = live.get(roomName);
      if (d) unload(d);
      await store.remove(roomName);
    },

    /** For tests and the bench: the doc this node holds for a room. */
    peek: (roomName: string): Y.Doc | undefined => live.get(roomName)?.doc,
  };
}

export type DocRegistry = ReturnType<typeof createDocRegistry>;
