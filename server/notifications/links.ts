/**
 * Deep links of notifications: the page of the room, at the moment (`?at=<seq>`, the room event's
 * seq), scrolled to the message (`#chat-<id>`). A thread message also names its finding.
 */
import { chatAnchor } from "../shared/notifications.ts";
import { parseRoom, type RoomName } from "../shared/rooms.ts";

const PAGES = {
  review: (uid: string) => `/reviews/${uid}`,
  project: (uid: string) => `/projects/${uid}`,
  kb: (uid: string) => `/knowledge/${uid}`,
  run: (uid: string) => `/pipelines/runs/${uid}`,
  pipeline: (uid: string) => `/pipelines/${uid}`,
  prompt: (uid: string) => `/prompts/${uid}`,
} as const;

export function messageLink(room: RoomName, m: { id: string; thread: string | null }, seq: number): string {
  const parsed = parseRoom(room);
  if (!parsed) throw new Error(`Not a room name: ${room}`);
  const page = PAGES[parsed.kind](encodeURIComponent(parsed.uid));
  const query = new URLSearchParams();
  if (parsed.kind === "review") query.set("at", String(seq));
  if (m.thread !== null) query.set("finding", m.thread);
  const q = query.toString();
  const sep = page.includes("?") ? "&" : "?";
  return `${page}${q ? sep + q : ""}#${chatAnchor(m.id)}`;
}

export const reviewLink = (uid: string, seq: number) => `/reviews/${encodeURIComponent(uid)}?at=${seq}`;
