"use client";
/**
 * The reactions of a chat's messages: the latest `chat_reactions` event of a message is its state
 * (the room's log and live events); for a message with no such event among the events held, the
 * reactions its chat page carried. `toggle` adds or takes back one's own.
 */
import { useCallback, useMemo } from "react";
import { type RoomState, useRoomAccess } from "@/app/_lib/room.ts";
import type { Ack, ClientReplies } from "@/server/shared/room-protocol.ts";
import { ackErrorText } from "@/server/shared/ack-text.ts";
import type { Reaction, ReactionEmoji } from "@/server/shared/room-reactions.ts";
import type { RoomKind, RoomName } from "@/server/shared/rooms.ts";

const TIMEOUT_MS = 10_000;
const NONE: Reaction[] = [];

export function useReactions<K extends RoomKind>(
  room: RoomName<K>,
  state: RoomState<K>,
  fromPages: ReadonlyMap<string, Reaction[]>,
) {
  const { socket } = useRoomAccess();
  const live = useMemo(() => {
    const latest = new Map<string, Reaction[]>();
    for (const e of state.events) if (e.type === "chat_reactions") latest.set(e.payload.messageId, e.payload.reactions);
    return latest;
  }, [state.events]);

  const of = useCallback((id: string) => live.get(id) ?? fromPages.get(id) ?? NONE, [live, fromPages]);

  /** Resolves with nothing when it worked, else the server's reason. */
  const toggle = useCallback(
    async (id: string, emoji: ReactionEmoji): Promise<string | null> => {
      try {
        // Typed here: socket.io-client's `timeout().emitWithAck` loses the reply's type (any).
        const reply: Ack<ClientReplies["chat.react"]> = await socket()
          .timeout(TIMEOUT_MS)
          .emitWithAck("chat.react", { room, id, emoji });
        return reply.ok ? null : ackErrorText(reply);
      } catch {
        return "The chat did not answer; check your connection and try again.";
      }
    },
    [room, socket],
  );

  return { of, toggle };
}
