/**
 * Opened indexes shared across requests. Opening an index (catalog, table, version pin, index stats)
 * and rebuilding its query embedder from the stored IDF cost 0.3–0.6 s at 250k chunks — fifty times
 * the search itself — so the app's search boxes keep indexes open between requests.
 *
 * Every `use` reads the catalog entry first (one small query): a rebuilt or updated index has a new
 * version, so a stale handle is never used, and a dropped index is never served. A handle being
 * replaced or evicted is closed once the requests using it are done.
 */
import { readEntryVersion } from "./catalog.ts";
import { openChunkIndex, type ChunkIndex } from "./chunk-index.ts";
import { connect, type Store } from "./connect.ts";

export interface IndexCache {
  /** Run `fn` with the current version of index `name` (null when it was never built). When a full
   * rebuild drops the table under a running `fn`, it fails; it is then run once more on the new
   * index — so keep `fn` read-only. */
  use<T>(name: string, fn: (index: ChunkIndex | null) => Promise<T>): Promise<T>;
  /** How many indexes are open (for tests and diagnostics). */
  size(): number;
  close(): Promise<void>;
}

interface Slot {
  index: ChunkIndex;
  users: number;
  retired: boolean;
  lastUsed: number;
}

export interface IndexCacheOptions {
  /** Open indexes kept when idle; the least recently used beyond this are closed. */
  maxIdle?: number;
  /** An index unused this long is closed. */
  idleMs?: number;
}

export function createIndexCache(uri: string, options: IndexCacheOptions = {}): IndexCache {
  const maxIdle = options.maxIdle ?? 8;
  const idleMs = options.idleMs ?? 10 * 60_000;
  let store: Promise<Store> | null = null;
  const slots = new Map<string, Slot>();
  // Requests for an index that is being opened wait for that one open instead of opening their own.
  const opening = new Map<string, Promise<Slot | null>>();
  let closed = false;

  const sweep = setInterval(() => evict(), Math.min(idleMs, 60_000));
  sweep.unref();

  function release(slot: Slot) {
    if (slot.retired && slot.users === 0) slot.index.close();
  }

  /** Stop handing out the index's slot (or only `which`, if it is still the current one). */
  function retire(name: string, which?: Slot) {
    const slot = slots.get(name);
    if (!slot || (which && slot !== which)) return;
    slots.delete(name);
    slot.retired = true;
    release(slot);
  }

  function evict() {
    const now = Date.now();
    for (const [name, slot] of slots) if (slot.users === 0 && now - slot.lastUsed > idleMs) retire(name);
    const idle = [...slots].filter(([, s]) => s.users === 0).sort((a, b) => a[1].lastUsed - b[1].lastUsed);
    for (const [name] of idle.slice(0, Math.max(0, idle.length - maxIdle))) retire(name);
  }

  async function current(name: string): Promise<Slot | null> {
    store ??= connect(uri);
    const db = (await store).db;
    const entry = await readEntryVersion(db, name);
    const cached = slots.get(name);
    if (!entry) {
      retire(name);
      return null;
    }
    if (cached && cached.index.table === entry.table && cached.index.version === entry.version) return cached;
    let pending = opening.get(name);
    if (!pending) {
      pending = openChunkIndex(await store, name).then((index) => {
        if (!index) return null;
        retire(name);
        const slot: Slot = { index, users: 0, retired: false, lastUsed: Date.now() };
        slots.set(name, slot);
        return slot;
      });
      opening.set(name, pending);
      void pending.finally(() => opening.delete(name)).catch(() => undefined);
    }
    return pending;
  }

  return {
    async use(name, fn) {
      if (closed) throw new Error("The index cache is closed.");
      for (let attempt = 1; ; attempt++) {
        const slot = await current(name);
        if (!slot) return fn(null);
        slot.users++;
        slot.lastUsed = Date.now();
        try {
          return await fn(slot.index);
        } catch (error) {
          // Replaced meanwhile (a rebuild drops the old table's files): try once on the new one.
          if (attempt > 1) throw error;
          const now = await readEntryVersion((await store!).db, name).catch(() => undefined);
          if (now === undefined || (now && now.table === slot.index.table && now.version === slot.index.version))
            throw error;
          retire(name, slot);
        } finally {
          slot.users--;
          slot.lastUsed = Date.now();
          release(slot);
          evict();
        }
      }
    },
    size: () => slots.size,
    async close() {
      closed = true;
      clearInterval(sweep);
      for (const name of [...slots.keys()]) retire(name);
      if (store) (await store).close();
    },
  };
}
