/**
 * Room names: one place that builds and parses them, for the server and the browser. A room is named
 * after what it shows — `review:<uid>`, `project:<uid>`, `run:<uid>` (a pipeline run), `kb:<uid>` (a
 * knowledge base), `pipeline:<uid>` (a workspace pipeline's page), `prompt:<uid>` (a review prompt's editor) — so the name alone says what it is and whose workspace decides who may enter.
 */
import { z } from "zod";

export const ROOM_KINDS = ["review", "project", "run", "kb", "pipeline", "prompt"] as const;
export type RoomKind = (typeof ROOM_KINDS)[number];

/** `review:<uid>` etc.; the kind is part of the type, so a review room only takes review events. */
export type RoomName<K extends RoomKind = RoomKind> = `${K}:${string}`;
/** The kind a room name's type carries (`RoomKindOf<"review:…">` = "review"). */
export type RoomKindOf<R extends RoomName> = R extends `${infer K extends RoomKind}:${string}` ? K : never;

// The uids Argus hands out are UUIDs (crypto.randomUUID).
const UID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const NAME = /^(review|project|run|kb|pipeline|prompt):([0-9a-f-]{36})$/i;

export const ROOM_NAME_HINT =
  "a room is review:<uid>, project:<uid>, run:<uid>, kb:<uid>, pipeline:<uid> or prompt:<uid>";

export function roomName<K extends RoomKind>(kind: K, uid: string): RoomName<K> {
  if (!UID.test(uid)) throw new Error(`Not a uid for a ${kind} room: ${JSON.stringify(uid)}`);
  return `${kind}:${uid.toLowerCase()}`;
}

/** The room of a uid from outside (a URL): null when it is no uid, instead of throwing. */
export function roomNameOrNull<K extends RoomKind>(kind: K, uid: string): RoomName<K> | null {
  return UID.test(uid) ? roomName(kind, uid) : null;
}

export const reviewRoom = (uid: string) => roomName("review", uid);
export const projectRoom = (uid: string) => roomName("project", uid);
export const runRoom = (uid: string) => roomName("run", uid);
export const kbRoom = (uid: string) => roomName("kb", uid);
export const pipelineRoom = (uid: string) => roomName("pipeline", uid);
export const promptRoom = (uid: string) => roomName("prompt", uid);

export interface ParsedRoom<K extends RoomKind = RoomKind> {
  kind: K;
  uid: string;
  name: RoomName<K>;
}

/** The room a string names, or null when it names none (only strings do: an array would pass String()). */
export function parseRoom(name: unknown): ParsedRoom | null {
  if (typeof name !== "string") return null;
  const m = NAME.exec(name);
  if (!m || !UID.test(m[2]!)) return null;
  const kind = m[1]!.toLowerCase() as RoomKind;
  const uid = m[2]!.toLowerCase();
  return { kind, uid, name: `${kind}:${uid}` };
}

/** A room name in a message from a client; parses to its canonical (lower-case) form. */
export const roomNameSchema = z
  .string()
  .max(64)
  .transform((s, ctx) => {
    const parsed = parseRoom(s);
    if (!parsed) {
      ctx.addIssue({ code: "custom", message: ROOM_NAME_HINT });
      return z.NEVER;
    }
    return parsed.name;
  });
