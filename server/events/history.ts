/**
 * Reading a room's log back (EventBus.history): rows after a seq, oldest first, each parsed again by
 * its room's schema. The log is read HISTORY_CHUNK rows per query and the event loop serves everyone
 * else between chunks: a 1,000-event log parsed in one go held /api/health for a third of a second
 * while a history flood was being refused (issue 25). With `maxBytes`, reading stops once the events
 * would not fit in a reply, so a page reads little more than it sends.
 */
import type { Db } from "../db/client.ts";
import type { Logger } from "../logger.ts";
import { type RoomEvent, roomEventSchemas } from "../shared/room-events.ts";
import { jsonBytes } from "../shared/reply-bytes.ts";
import type { RoomKind, RoomName } from "../shared/rooms.ts";

/** Rows per query: parsing 100 rows held the loop ~30 ms on a loaded 2-core machine (bench/floods.ts). */
export const HISTORY_CHUNK = 25;

export interface HistoryOptions {
  /** Event types left out by prefix (e.g. `ask.`), before the limit, so a page stays full. */
  omitTypes?: readonly string[];
  /**
   * Stop once the events' JSON array is past this size. The caller cuts the page with fitFromStart,
   * which counts the same way and so finds it over budget: nothing past the cut is lost.
   */
  maxBytes?: number;
}

type Row = { seq: number; type: string; payload: string; createdAt: Date };

export async function readLog(
  deps: { db: Db; log: Logger },
  room: RoomName,
  kind: RoomKind,
  opts: HistoryOptions & { afterSeq: number; limit: number },
): Promise<RoomEvent[]> {
  const omit = opts.omitTypes ?? [];
  const maxBytes = opts.maxBytes ?? Infinity;
  const events: RoomEvent[] = [];
  let bytes = 1; // "[" and "]", one comma fewer than events: counted as fitFromStart counts
  let after = opts.afterSeq;
  for (let read = 0; read < opts.limit && bytes <= maxBytes;) {
    if (read > 0) await new Promise((resolve) => setImmediate(resolve));
    const take = Math.min(HISTORY_CHUNK, opts.limit - read);
    const rows: Row[] = await deps.db.roomEvent.findMany({
      where: {
        room,
        seq: { gt: after },
        ...(omit.length ? { NOT: omit.map((prefix) => ({ type: { startsWith: prefix } })) } : {}),
      },
      orderBy: { seq: "asc" },
      take,
      select: { seq: true, type: true, payload: true, createdAt: true },
    });
    for (const row of rows) {
      const event = parseRow(deps.log, kind, room, row);
      if (!event) continue;
      events.push(event);
      if (maxBytes !== Infinity) bytes += jsonBytes(event) + 1;
      if (bytes > maxBytes) break;
    }
    read += rows.length;
    if (rows.length < take) break;
    after = rows[rows.length - 1]!.seq;
  }
  return events;
}

/** A stored row as its event; null (and a warning) for a row no schema of its room describes. */
function parseRow(log: Logger, kind: RoomKind, room: RoomName, r: Row): RoomEvent | null {
  const parsed = roomEventSchemas[kind].safeParse({ type: r.type, payload: parseJson(r.payload) });
  if (parsed.success) return { ...parsed.data, room, seq: r.seq, at: r.createdAt.toISOString() } as RoomEvent;
  // Written by hand, or by a version that never shipped: left out, and said so, rather than handed
  // to a page that would trip over it.
  log.warn({ room, seq: r.seq, type: r.type }, "room event does not match its room's schema; skipped");
  return null;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
