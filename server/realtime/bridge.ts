/**
 * The adapter between the event bus and Socket.IO rooms: one bus subscription per room that has
 * watchers in this process, forwarding each event to the Socket.IO room of the same name, dropped
 * when the last watcher leaves. (Across nodes this needs the Redis adapter and a shared bus.)
 *
 * Spectators (share links) are also in their room's `spectatorsOf` Socket.IO room: events they are
 * never sent (server/rooms/spectators.ts) go to the room except that one.
 */
import type { EventBus } from "../events/bus.ts";
import { hiddenFromSpectators } from "../rooms/spectators.ts";
import type { RoomName } from "../shared/rooms.ts";
import type { ArgusSocketServer } from "./types.ts";

export interface RoomBridge {
  /** Makes sure events of the room reach its Socket.IO room (idempotent). */
  watch(room: RoomName): void;
}

/** The Socket.IO room of a room's spectators (not an Argus room: nothing is published to it). */
export const spectatorsOf = (room: RoomName | string): string => `spectators:${room}`;

export function bridgeRooms(io: ArgusSocketServer, events: EventBus): RoomBridge {
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
        events.subscribe(room, (e) =>
          (hiddenFromSpectators(e.type) ? io.to(room).except(spectatorsOf(room)) : io.to(room)).emit("event", e),
        ),
      );
    },
  };
}
