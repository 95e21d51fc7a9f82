/**
 * One side of a shared draft (server/coedit): a Yjs doc and its awareness kept in step with the room's
 * draft over the room socket. Open = y-protocols sync step 1 → the server's step 2 (what we lack) and
 * its state vector, answered with what the server lacks (edits made offline merge here). Local edits
 * go out at once or batched (at most one `doc.update` per EDIT_GAP_MS), cursors at most every
 * AWARENESS_GAP_MS. Whatever goes
 * wrong with an edit (refused, rate limited, the socket dropped) is repaired by opening again: the
 * sync sends everything the server does not have, so nothing typed is lost. Not React: the editor
 * hooks (use-shared-doc.ts), the tests and the bench use it alike.
 */
import * as decoding from "lib0/decoding";
import * as encoding from "lib0/encoding";
import { Awareness, applyAwarenessUpdate, encodeAwarenessUpdate } from "y-protocols/awareness";
import * as syncProtocol from "y-protocols/sync";
import * as Y from "yjs";
import { type DocNotice, type DocOpened, decodeBinary, encodeBinary } from "@/server/shared/coedit.ts";
import type { Ack } from "@/server/shared/room-protocol.ts";

/**
 * At most one edit message per EDIT_GAP_MS (the server's budget is 25 a second): a keystroke after a
 * pause goes at once, so it shows within a frame; faster typing is batched. Cursors likewise.
 */
export const EDIT_GAP_MS = 45;
export const AWARENESS_GAP_MS = 90;
const RETRY_MS = [250, 500, 1000, 2000, 5000];

/** The socket as the doc client uses it (a Socket.IO client socket of the room protocol). */
export interface DocSocket {
  readonly connected: boolean;
  emit(event: string, payload: unknown, ack: (reply: Ack<object>) => void): unknown;
  on(event: string, listener: (...args: never[]) => void): unknown;
  off(event: string, listener: (...args: never[]) => void): unknown;
}

export type DocStatus = "opening" | "synced" | "offline" | "ended";

export interface DocClientState {
  status: DocStatus;
  readOnly: boolean;
  full: boolean;
  /** Why the session ended, or the last refusal worth showing. */
  message: string | null;
  /** Local edits the server has not confirmed yet. */
  unsent: boolean;
}

/** Marks what came from the server (not sent back). */
export const FROM_SERVER = Symbol("coedit-server");

export class DocClient {
  readonly doc: Y.Doc;
  readonly awareness: Awareness;
  state: DocClientState = { status: "opening", readOnly: true, full: false, message: null, unsent: false };
  private generation = -1;
  private early: { generation: number; update: string }[] = [];
  private pending: Uint8Array[] = [];
  private inFlight = false;
  private batchTimer: ReturnType<typeof setTimeout> | null = null;
  private awarenessTimer: ReturnType<typeof setTimeout> | null = null;
  private awarenessChanged = new Set<number>();
  private retry = 0;
  private lastSent = 0;
  private lastAwareness = 0;
  private retryTimer: ReturnType<typeof setTimeout> | null = null;
  private closed = false;
  private readonly listeners = new Set<(state: DocClientState) => void>();
  private readonly noticeListeners = new Set<(notice: DocNotice) => void>();
  private readonly off: (() => void)[] = [];

  constructor(
    private readonly socket: DocSocket,
    readonly room: string,
    doc?: Y.Doc,
  ) {
    this.doc = doc ?? new Y.Doc();
    this.awareness = new Awareness(this.doc);
    const onUpdate = (update: Uint8Array, origin: unknown) => {
      if (origin === FROM_SERVER) return;
      this.pending.push(update);
      this.set({ unsent: true });
      this.schedule();
    };
    this.doc.on("update", onUpdate);
    this.off.push(() => this.doc.off("update", onUpdate));
    const onAwareness = ({ added, updated, removed }: Record<string, number[]>, origin: unknown) => {
      if (origin !== "local") return;
      for (const id of [...added!, ...updated!, ...removed!]) this.awarenessChanged.add(id);
      const wait = Math.max(0, this.lastAwareness + AWARENESS_GAP_MS - Date.now());
      this.awarenessTimer ??= setTimeout(() => this.flushAwareness(), wait);
    };
    this.awareness.on("update", onAwareness);
    this.off.push(() => this.awareness.off("update", onAwareness));
    this.listen("doc.update", (info: { room: string; generation: number; update: string }) => {
      if (info.room !== this.room) return;
      // Before the first open's reply its generation is unknown: kept, applied once it is.
      if (this.generation === -1) this.early.push(info);
      else if (info.generation === this.generation) Y.applyUpdate(this.doc, decodeBinary(info.update), FROM_SERVER);
    });
    this.listen("doc.awareness", (info: { room: string; update: string }) => {
      if (info.room === this.room) applyAwarenessUpdate(this.awareness, decodeBinary(info.update), FROM_SERVER);
    });
    this.listen("doc.notice", (info: { room: string; notice: DocNotice }) => {
      if (info.room !== this.room) return;
      this.onNotice(info.notice);
      for (const l of this.noticeListeners) l(info.notice);
    });
    this.listen("revoked", (info: { room: string; reason: string }) => {
      if (info.room === this.room) this.end(info.reason);
    });
    this.listen("disconnect", () => this.status("offline"));
    // The room is joined again on reconnect (useRoom): open once that had a moment.
    this.listen("connect", () => this.reopenSoon(RETRY_MS[0]!));
  }

  /** Opens the draft (the socket must have joined the room). */
  async open(): Promise<void> {
    if (this.closed) return;
    this.status("opening");
    const step1 = encodeBinary(this.message((e) => syncProtocol.writeSyncStep1(e, this.doc)));
    const reply = await this.call<DocOpened>("doc.open", { room: this.room, sync: step1 });
    if (!reply.ok) return this.refused(reply);
    if (this.generation !== -1 && reply.generation !== this.generation) {
      // Started again from a version: this doc's history is not the server's any more.
      return this.end("The draft was started again from a saved version: reload to continue.");
    }
    this.generation = reply.generation;
    const decoder = decoding.createDecoder(decodeBinary(reply.sync));
    syncProtocol.readSyncMessage(decoder, encoding.createEncoder(), this.doc, FROM_SERVER);
    for (const e of this.early.splice(0))
      if (e.generation === this.generation) Y.applyUpdate(this.doc, decodeBinary(e.update), FROM_SERVER);
    if (reply.awareness) applyAwarenessUpdate(this.awareness, decodeBinary(reply.awareness), FROM_SERVER);
    this.retry = 0;
    this.set({ readOnly: reply.readOnly, full: reply.full, status: "synced" });
    // What we have that the server lacks (typed offline, or refused earlier): one update.
    this.pending = [];
    if (!reply.readOnly) {
      const server = decoding.createDecoder(decodeBinary(reply.serverSync));
      decoding.readVarUint(server);
      const missing = Y.encodeStateAsUpdate(this.doc, decoding.readVarUint8Array(server));
      if (!isEmptyUpdate(missing)) this.pending.push(missing);
    }
    // Our cursor for the others (they may have joined since we last said).
    const local = this.awareness.getLocalState();
    if (local) this.awarenessChanged.add(this.doc.clientID);
    this.flushAwareness();
    this.schedule();
    if (!this.pending.length) this.set({ unsent: false });
  }

  /** Saves the merged draft as a version. */
  async save(message?: string): Promise<Ack<{ version: number | null }>> {
    await this.flush();
    return this.call<{ version: number | null }>("doc.save", { room: this.room, ...(message ? { message } : {}) });
  }

  /** Sends what is pending now (resolves when the server confirmed or refused it). */
  async flush(): Promise<void> {
    if (this.batchTimer) clearTimeout(this.batchTimer);
    this.batchTimer = null;
    if (this.inFlight || !this.pending.length || this.state.status !== "synced" || this.state.readOnly) return;
    const update = this.pending.length === 1 ? this.pending[0]! : Y.mergeUpdates(this.pending);
    this.pending = [];
    this.inFlight = true;
    this.lastSent = Date.now();
    const sync = encodeBinary(this.message((e) => syncProtocol.writeUpdate(e, update)));
    const reply = await this.call("doc.update", { room: this.room, generation: this.generation, sync });
    this.inFlight = false;
    if (!reply.ok) return this.refused(reply);
    if (this.pending.length) this.schedule();
    else this.set({ unsent: false });
  }

  onChange(listener: (state: DocClientState) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  onNoticeReceived(listener: (notice: DocNotice) => void): () => void {
    this.noticeListeners.add(listener);
    return () => this.noticeListeners.delete(listener);
  }

  close(): void {
    this.closed = true;
    for (const t of [this.batchTimer, this.awarenessTimer, this.retryTimer]) if (t) clearTimeout(t);
    for (const off of this.off) off();
    this.awareness.setLocalState(null);
    this.awareness.destroy();
  }

  private onNotice(notice: DocNotice): void {
    if (notice.kind === "full") this.set({ full: true, message: notice.message });
    if (notice.kind === "ended") this.end(notice.message);
    if (notice.kind === "reset" && notice.generation !== this.generation)
      this.end("The draft was started again from the version just saved: reload to continue.");
    if (notice.kind === "saved") this.set({ full: false });
  }

  private schedule(): void {
    if (this.batchTimer || this.inFlight) return;
    const wait = Math.max(0, this.lastSent + EDIT_GAP_MS - Date.now());
    this.batchTimer = setTimeout(() => void this.flush(), wait);
  }

  private flushAwareness(): void {
    if (this.awarenessTimer) clearTimeout(this.awarenessTimer);
    this.awarenessTimer = null;
    if (!this.awarenessChanged.size || this.state.status !== "synced") return;
    const ids = [...this.awarenessChanged].filter((id) => this.awareness.meta.has(id));
    this.awarenessChanged.clear();
    if (!ids.length) return;
    const update = encodeBinary(encodeAwarenessUpdate(this.awareness, ids));
    this.lastAwareness = Date.now();
    void this.call("doc.awareness", { room: this.room, update });
  }

  private refused(reply: Extract<Ack<object>, { ok: false }>): void {
    if (reply.code === "not_found" || reply.code === "forbidden") {
      if (reply.code === "not_found") return this.end(reply.message);
      this.set({ message: reply.message });
      if (this.state.readOnly) return;
    }
    if (reply.code === "conflict" && /full/.test(reply.message))
      return this.set({ full: true, message: reply.message });
    // Anything else: open again after a pause; the sync re-sends what the server lacks.
    this.reopenSoon(reply.retryAfterMs ?? RETRY_MS[Math.min(this.retry++, RETRY_MS.length - 1)]!);
  }

  private reopenSoon(ms: number): void {
    if (this.closed || this.state.status === "ended" || this.retryTimer) return;
    this.retryTimer = setTimeout(() => {
      this.retryTimer = null;
      if (this.socket.connected) void this.open();
    }, ms);
  }

  private end(message: string): void {
    this.set({ status: "ended", message, readOnly: true });
  }

  private status(status: DocStatus): void {
    if (this.state.status !== "ended") this.set({ status });
  }

  private set(patch: Partial<DocClientState>): void {
    this.state = { ...this.state, ...patch };
    for (const l of this.listeners) l(this.state);
  }

  private listen<T>(event: string, handler: (info: T) => void): void {
    const l = handler as (...args: never[]) => void;
    this.socket.on(event, l);
    this.off.push(() => this.socket.off(event, l));
  }

  private message(write: (e: encoding.Encoder) => void): Uint8Array {
    const e = encoding.createEncoder();
    write(e);
    return encoding.toUint8Array(e);
  }

  private call<T extends object>(event: string, payload: unknown): Promise<Ack<T>> {
    if (!this.socket.connected) {
      this.status("offline");
      return Promise.resolve({ ok: false, code: "internal", message: "offline" });
    }
    return new Promise((resolve) => this.socket.emit(event, payload, (r) => resolve(r as Ack<T>)));
  }
}

/** An update that changes nothing (no structs, no deletions). */
function isEmptyUpdate(update: Uint8Array): boolean {
  return update.length <= 2 && update.every((b) => b === 0);
}
