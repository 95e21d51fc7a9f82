/**
 * "This draft's pipeline or prompt was deleted": the services announce it, the stored draft is
 * forgotten, and whoever holds live editors of it (server/realtime) ends their session with the
 * message at once. Plain in-process listeners, like membership changes: with several nodes the
 * notice reaches every node's sockets through the room, and a node's periodic re-check is the backstop.
 */
import type { Db } from "../db/client.ts";
import { createDocStore } from "./store.ts";

export type DraftEndListener = (room: string, message: string) => Promise<void> | void;

export function createDraftEndings(db: Db, onListenerError: (err: unknown) => void) {
  const store = createDocStore(db);
  const listeners = new Set<DraftEndListener>();
  return {
    async emit(room: string, message: string): Promise<void> {
      await Promise.all(
        [...listeners].map(async (listener) => {
          try {
            await listener(room, message);
          } catch (err) {
            onListenerError(err);
          }
        }),
      );
      await store.remove(room).catch(onListenerError);
    },
    subscribe(listener: DraftEndListener): () => void {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}

export type DraftEndings = ReturnType<typeof createDraftEndings>;
