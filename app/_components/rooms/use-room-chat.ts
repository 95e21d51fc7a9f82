"use client";
/**
 * A room's chat (or one finding's thread) in the browser: the latest page loaded over the socket,
 * older pages on request, and every `chat_message` event of the room merged in — each message at its
 * highest version, so an edit or a delete replaces what was shown whatever arrived first. The pages'
 * reactions are kept too (use-reactions.ts prefers the room's events over them).
 */
import { useCallback, useEffect, useMemo, useState } from "react";
import { type RoomState, useRoomAccess } from "@/app/_lib/room.ts";
import { type ChatMessage, mergeMessages } from "@/server/shared/room-chat.ts";
import type { Reaction } from "@/server/shared/room-reactions.ts";
import type { Ack, ClientReplies } from "@/server/shared/room-protocol.ts";
import { ackErrorText } from "@/server/shared/ack-text.ts";
import type { RoomKind, RoomName } from "@/server/shared/rooms.ts";

const TIMEOUT_MS = 10_000;

/** What a chat action answers: nothing when it worked, else the server's reason. */
export type ChatResult = string | null;

export function useRoomChat<K extends RoomKind>(room: RoomName<K>, state: RoomState<K>, thread: string | null = null) {
  const [paged, setPaged] = useState<Map<string, ChatMessage>>(new Map());
  const [pageReactions, setPageReactions] = useState<ReadonlyMap<string, Reaction[]>>(new Map());
  const [more, setMore] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const { socket } = useRoomAccess();

  const loadPage = useCallback(
    async (before?: string) => {
      try {
        // Typed here: socket.io-client's `timeout().emitWithAck` loses the reply's type (any).
        const reply: Ack<ClientReplies["chat.page"]> = await socket()
          .timeout(TIMEOUT_MS)
          .emitWithAck("chat.page", { room, thread, ...(before ? { before } : {}) });
        if (!reply.ok) return setError(ackErrorText(reply));
        setPaged((prev) => mergeMessages(prev, reply.messages));
        // Every message of the page gets its reactions (none: an empty list), so one whose last
        // reaction was taken back shows none.
        const reactions = new Map(reply.reactions.map((r) => [r.messageId, r.reactions]));
        setPageReactions(
          (prev) => new Map([...prev, ...reply.messages.map((m) => [m.id, reactions.get(m.id) ?? []] as const)]),
        );
        // "More" is about the oldest page loaded so far.
        if (before || !reply.more) setMore(reply.more);
        else setMore((had) => had || reply.more);
        setError(null);
      } catch {
        setError("The chat did not answer; check your connection.");
      }
    },
    [room, thread, socket],
  );

  useEffect(() => {
    if (state.connected) void loadPage();
  }, [state.connected, loadPage]);

  const messages = useMemo(() => {
    const live = state.events.flatMap((e) =>
      e.type === "chat_message" && e.payload.thread === thread ? [e.payload] : [],
    );
    return [...mergeMessages(paged, live).values()].sort(
      (a, b) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id),
    );
  }, [paged, state.events, thread]);

  const run = async (call: () => Promise<Ack>): Promise<ChatResult> => {
    try {
      const reply = await call();
      return reply.ok ? null : ackErrorText(reply);
    } catch {
      return "The chat did not answer; check your connection and try again.";
    }
  };
  const s = () => socket().timeout(TIMEOUT_MS);

  return {
    messages,
    pageReactions,
    more,
    error,
    loadOlder: () => messages[0] && loadPage(messages[0].id),
    send: (body: string) => run(() => s().emitWithAck("chat.send", { room, body, thread })),
    edit: (id: string, body: string) => run(() => s().emitWithAck("chat.edit", { room, id, body })),
    remove: (id: string) => run(() => s().emitWithAck("chat.delete", { room, id })),
    edits: async (id: string) => {
      const reply = await s().emitWithAck("chat.edits", { room, id });
      return reply.ok ? reply.edits : [];
    },
  };
}
