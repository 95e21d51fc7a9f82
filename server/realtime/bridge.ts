/**
 * The adapter between the event bus and Socket.IO rooms.
 *
 * One process (the embedded default): one bus subscription per room that has watchers here,
 * forwarding each event to the Socket.IO room of the same name, dropped when the last watcher leaves.
 *
 * Across nodes (REDIS_URL): every event this process stores goes to its Socket.IO room — the cluster
 * adapter (cluster.ts) carries it to the sockets on every node, including rooms this node has no
 * watcher of (a worker has no sockets at all). Every event is stored before it is sent, so a client
 * that missed one live finds it in the log.
 *
 * Spectators (share links) are also in their room's `spectatorsOf` Socket.IO room: events they are
 * never sent (server/rooms/spectators.ts) go to the room except that one (on every node alike).
 */
import type { EventBus } from "../events/bus.ts";
import { hiddenFromSpectators } from "../rooms/spectators.ts";
import type { RoomName } from "../shared/rooms.ts";
import type { ArgusSocketServer } from "./types.ts";

export interface RoomBridge {
  /** Makes sure events of the room reach its Socket.IO room (idempotent). */
  watch(room: RoomName): void;
  close(): void;
}

/** The Socket.IO room of a room's spectators (not an Argus room: nothing is published to it). */
export const spectatorsOf = (room: RoomName | string): string => `spectators:${room}`;

export function bridgeRooms(io: ArgusSocketServer, events: EventBus, opts: { everyRoom?: boolean } = {}): RoomBridge {
  const send = (room: string, e: Parameters<Parameters<EventBus["subscribeAll"]>[0]>[0]) =>
    (hiddenFromSpectators(e.type) ? io.to(room).except(spectatorsOf(room)) : io.to(room)).emit("event", e);
  if (opts.everyRoom) {
    const unsubscribe = events.subscribeAll((e) => send(e.room, e));
    return { watch: () => undefined, close: unsubscribe };
  }
  const bridges = new Map<string, () => void>();
  io.of("/").adapter.on("delete-room", (room: string) => {
    bridges.get(room)?.();
    bridges.delete(room);
  });
  return {
    watch(room) {
      if (bridges.has(room)) return;
      bridges.set(
        room,
        events.subscribe(room, (e) => send(room, e)),
      );
    },
    close() {
      for (const unsubscribe of bridges.values()) unsubscribe();
      bridges.clear();
    },
  };
}
