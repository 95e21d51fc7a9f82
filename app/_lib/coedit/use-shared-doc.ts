"use client";
/**
 * A page's shared draft (server/coedit) in React: one DocClient on the tab's room socket, opened once
 * the page's room is joined (useRoom), the user's name and colour in its awareness, and who else is
 * editing (their name, colour, cursor line and selected graph node) as state.
 */
import { useEffect, useState } from "react";
import { roomSocket } from "@/app/_lib/room.ts";
import type { AwarenessState } from "@/server/shared/coedit.ts";
import { DocClient, type DocClientState, type DocSocket } from "./doc-client.ts";

export interface Coeditor {
  clientId: number;
  name: string;
  color: string;
  line: number | null;
  node: string | null;
}

const COLORS = ["#2563eb", "#db2777", "#16a34a", "#ea580c", "#9333ea", "#0891b2", "#ca8a04", "#dc2626"];

/** A person's colour: the same in every tab and for every teammate. */
export function colorOf(id: string): string {
  let h = 0;
  for (const c of id) h = (h * 31 + c.charCodeAt(0)) | 0;
  return COLORS[Math.abs(h) % COLORS.length]!;
}

export interface SharedDoc {
  client: DocClient | null;
  state: DocClientState | null;
  /** The others with the draft open (not this tab). */
  editors: Coeditor[];
}

export function useSharedDoc(room: string | null, joined: boolean, user: { id: string; name: string }): SharedDoc {
  const [client, setClient] = useState<DocClient | null>(null);
  const [state, setState] = useState<DocClientState | null>(null);
  const [editors, setEditors] = useState<Coeditor[]>([]);

  // Made in an effect (not during render): a client is closed with its effect, and a new one made.
  useEffect(() => {
    if (!room) return;
    const client = new DocClient(roomSocket() as unknown as DocSocket, room);
    const color = colorOf(user.id);
    client.awareness.setLocalState({ user: { name: user.name, color, colorLight: `${color}33`, id: user.id } });
    const offState = client.onChange(setState);
    const read = () =>
      setEditors(
        [...client.awareness.getStates()]
          .filter(([id]) => id !== client.doc.clientID)
          .map(([clientId, raw]) => {
            const s = raw as Partial<AwarenessState>;
            return {
              clientId,
              name: s.user?.name ?? "Someone",
              color: s.user?.color ?? "#71717a",
              line: s.line ?? null,
              node: s.node ?? null,
            };
          })
          .filter((e) => e.name),
      );
    client.awareness.on("change", read);
    setClient(client);
    setState(client.state);
    return () => {
      offState();
      client.awareness.off("change", read);
      client.close();
      setClient(null);
    };
  }, [room, user.id, user.name]);

  useEffect(() => {
    if (client && joined) void client.open();
  }, [client, joined]);

  return { client, state, editors };
}
