/**
 * The adapter between the event bus and Socket.IO rooms: one bus subscription per room that has
 * watchers in this process, forwarding each event to the Socket.IO room of the same name, dropped
 * when the last watcher leaves. (Across nodes this needs the Redis adapter and a shared bus.)
 */
import type { EventBus } from "../events/bus.ts";
import type { RoomName } from "../shared/rooms.ts";
import type { ArgusSocketServer } from "./types.ts";

export interface RoomBridge {
  /** Makes sure events of the room reach its Socket.IO room (idempotent). */
  watch(room: RoomName): void;
}

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
        events.subscribe(room, (e) => io.to(room).emit("event", e)),
      );
    },
  };
}
