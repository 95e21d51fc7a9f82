/**
 * A room's writes, in order (see bus.ts for why): each event is inserted with the room's next free
 * seq — the insert is the allocation; a lost race on the unique index means another process took that
 * seq, so the next is tried — then delivered, after every earlier write of the same room.
 */
import { isUniqueViolation, type Db } from "../db/client.ts";
import type { Logger } from "../logger.ts";
import type { RoomEvent, RoomEventBody } from "../shared/room-events.ts";
import type { RoomName } from "../shared/rooms.ts";

/** Inserts tried before a publish gives up (each lost race means another process took that seq). */
const MAX_SEQ_ATTEMPTS = 50;

export interface RoomWrites {
  /** Stores then delivers the event, after every earlier write of the room; resolves with it as stored. */
  enqueue(room: RoomName, body: RoomEventBody): Promise<RoomEvent>;
  /** Whether a write of the room is queued or in flight. */
  writing(room: RoomName): boolean;
  /** Resolves once the room's writes queued so far have ended (each however it ended). */
  settled(room: RoomName): Promise<unknown>;
  /** Every room's writes queued so far have ended. */
  allSettled(): Promise<unknown>;
  /** Forgets the room (deleted): waits for its writes, then drops its chain and its seq guess. */
  forget(room: RoomName): Promise<void>;
}

export function createRoomWrites(deps: {
  db: Db;
  log: Logger;
  /** Called with each stored event, in the room's order. */
  deliver: (event: RoomEvent) => void;
  /** The room's last queued write has ended: nothing of it is being written now. */
  idle: (room: RoomName) => void;
}): RoomWrites {
  const { db, log } = deps;
  /** The seq this process expects to take next per room (a guess: the insert decides). */
  const nextSeq = new Map<string, number>();
  // Writes of one room are chained so rows land (and go out) in publish order.
  const chains = new Map<string, Promise<unknown>>();
  /** Writes of each room queued or in flight (absent: none). */
  const inFlight = new Map<string, number>();

  async function lastSeq(room: string): Promise<number> {
    const last = await db.roomEvent.findFirst({ where: { room }, orderBy: { seq: "desc" }, select: { seq: true } });
    return last?.seq ?? 0;
  }

  /** Inserts the event with the room's next free seq and returns it as stored. */
  async function store(room: RoomName, body: RoomEventBody): Promise<RoomEvent> {
    const at = new Date();
    const payload = JSON.stringify(body.payload);
    let seq = nextSeq.get(room) ?? (await lastSeq(room)) + 1;
    for (let attempt = 1; ; attempt++) {
      try {
        await db.roomEvent.create({ data: { room, seq, type: body.type, payload, createdAt: at } });
        break;
      } catch (err) {
        if (!isUniqueViolation(err) || attempt >= MAX_SEQ_ATTEMPTS) throw err;
        seq = (await lastSeq(room)) + 1; // another process took it
      }
    }
    nextSeq.set(room, seq + 1);
    return { ...body, room, seq, at: at.toISOString() } as RoomEvent;
  }

  function writeDone(room: RoomName): void {
    const left = (inFlight.get(room) ?? 1) - 1;
    if (left > 0) {
      inFlight.set(room, left);
      return;
    }
    inFlight.delete(room);
    deps.idle(room);
  }

  return {
    enqueue(room, body) {
      inFlight.set(room, (inFlight.get(room) ?? 0) + 1);
      const write = async () => {
        try {
          const event = await store(room, body);
          deps.deliver(event);
          return event;
        } finally {
          writeDone(room);
        }
      };
      const result = (chains.get(room) ?? Promise.resolve()).then(write, write);
      // The chain continues whatever this write did; the caller sees its own outcome.
      chains.set(
        room,
        result.catch((err: unknown) => log.error({ err, room, type: body.type }, "could not store room event")),
      );
      return result;
    },
    writing: (room) => inFlight.has(room),
    settled: async (room) => chains.get(room),
    allSettled: () => Promise.all([...chains.values()]),
    async forget(room) {
      await chains.get(room);
      chains.delete(room);
      nextSeq.delete(room);
    },
  };
}
